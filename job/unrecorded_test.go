package job

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/schedule"
)

// blockJournal puts a file where the journal's folder goes, so that no
// run can be written there (root or not), and returns what undoes it.
func blockJournal(t *testing.T, env Env) (unblock func()) {
	t.Helper()
	runs := env.Out.Runs()
	if err := os.Rename(runs, runs+".away"); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(runs, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return func() {
		os.Remove(runs)
		os.Rename(runs+".away", runs)
	}
}

// A run the journal cannot take is still on record: its start refused,
// the run fails (exit 1) without running its job, and it is counted in
// the metrics (failed, last exit code 1); its end refused, it is kept as
// it ended, not read as killed. The next run that can write puts both in
// the journal before its own.
func TestARunTheJournalCannotTakeIsStillOnRecord(t *testing.T) {
	env, _, clock := testEnv(t)
	env.Metrics = schedule.NewMetrics()
	ctx := context.Background()
	Do(ctx, env, Spec{Name: "export", Schedule: "quick"}, func(context.Context, Opened) (Outcome, error) { return Outcome{}, nil })

	clock.Sleep(ctx, time.Second)
	unblock := blockJournal(t, env)
	_, err := Do(ctx, env, Spec{Name: "export", Schedule: "quick"}, func(context.Context, Opened) (Outcome, error) {
		t.Error("the job ran though its run could not be recorded")
		return Outcome{}, nil
	})
	if ExitCode(ctx, err) != ExitFailure || !strings.Contains(err.Error(), "recording the run: journal: ") {
		t.Fatalf("exit %d: %v", ExitCode(ctx, err), err)
	}
	checkMetrics(t, env, `billsnap_runs_total{job="export",status="failed"} 1`, `billsnap_last_run_exit_code{job="export"} 1`)
	unblock()

	clock.Sleep(ctx, time.Second)
	Do(ctx, env, Spec{Name: "reconcile", Schedule: "quick"}, func(context.Context, Opened) (Outcome, error) {
		clock.Sleep(ctx, time.Second)
		blockJournal(t, env) // the disk fills while the job runs
		return Outcome{Material: true}, nil
	})
	if n, _ := env.Metrics.Unrecorded().Pending(); n != 1 { // the failed export went into the journal before this run started
		t.Fatalf("%d runs kept in memory, want 1", n)
	}
	checkMetrics(t, env, `billsnap_runs_total{job="reconcile",status="material"} 1`, `billsnap_last_run_exit_code{job="reconcile"} 3`)
	unblock()

	clock.Sleep(ctx, time.Minute) // the reconcile's file says running, its heartbeat long stopped
	if _, err := Do(ctx, env, Spec{Name: "export", Schedule: "quick"}, func(context.Context, Opened) (Outcome, error) { return Outcome{}, nil }); err != nil {
		t.Errorf("the run after: %v", err)
	}
	runs, err := journal.List(env.Out.Runs(), clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Job+" "+r.Status)
	}
	if strings.Join(got, ", ") != "export ok, reconcile material, export failed, export ok" {
		t.Errorf("the journal holds %v", got)
	}
	if n, _ := env.Metrics.Unrecorded().Pending(); n != 0 {
		t.Errorf("%d runs still kept in memory", n)
	}
	if len(runs) == 4 && !strings.HasPrefix(runs[2].Error, "recording the run: journal: ") {
		t.Errorf("the failed run's error: %q", runs[2].Error)
	}
	checkMetrics(t, env, `billsnap_runs_total{job="export",status="failed"} 1`, `billsnap_runs_total{job="export",status="ok"} 2`)
}

// checkMetrics checks that the metrics file holds every line of want.
func checkMetrics(t *testing.T, env Env, want ...string) {
	t.Helper()
	b, err := os.ReadFile(env.MetricsFile)
	for _, w := range want {
		if err != nil || !strings.Contains(string(b), w+"\n") {
			t.Errorf("metrics lack %s (%v):\n%s", w, err, b)
		}
	}
}
