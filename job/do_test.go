package job

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/migrate"
)

type dbStore struct{}

func (dbStore) Close() error { return nil }

func testEnv(t *testing.T) (Env, *sql.DB, *fakeclock.Clock) {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(dir, "t.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clock := fakeclock.New(time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC))
	env := Env{Open: func(context.Context) (Opened, error) { return dbStore{}, nil }, MetricsFile: filepath.Join(dir, "billsnap.prom"),
		Out:       layout.Dir(dir),
		ReadModel: func(context.Context) (*sql.DB, error) { return sql.Open("duckdb", filepath.Join(dir, "t.duckdb")) },
		Log:       slog.New(slog.DiscardHandler), Now: clock.Now, Redact: func(s string) string { return strings.ReplaceAll(s, "s3cret", "[REDACTED]") }}
	return env, db, clock
}

func TestDoRecordsEveryOutcome(t *testing.T) {
	env, _, clock := testEnv(t)
	ctx := context.Background()
	step := func(d time.Duration) { clock.Sleep(ctx, d) }
	Do(ctx, env, Spec{Name: "run", Schedule: "nightly"}, func(context.Context, Opened) (Outcome, error) {
		step(5 * time.Second)
		return Outcome{Snapshot: "s1"}, nil
	})
	Do(ctx, env, Spec{Name: "run", Schedule: "nightly"}, func(context.Context, Opened) (Outcome, error) {
		step(7 * time.Second)
		return Outcome{Snapshot: "s2", Material: true}, nil
	})
	_, err := Do(ctx, env, Spec{Name: "export"}, func(context.Context, Opened) (Outcome, error) {
		step(time.Second)
		return Outcome{}, errors.New("the service said no to key s3cret")
	})
	if err == nil {
		t.Fatal("the job's error is lost")
	}
	_, err = Do(ctx, env, Spec{Name: "reconcile"}, func(context.Context, Opened) (Outcome, error) {
		step(time.Second)
		panic("boom")
	})
	if !errors.Is(err, ErrPanic) {
		t.Fatalf("panic: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	Do(cctx, env, Spec{Name: "export"}, func(ctx context.Context, _ Opened) (Outcome, error) {
		step(time.Second)
		cancel() // SIGTERM while it runs
		return Outcome{}, ctx.Err()
	})
	runs, err := journal.List(env.Out.Runs(), clock.Now())
	if err != nil || len(runs) != 5 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	want := []struct{ job, status, err string }{
		{"export", journal.Interrupted, "canceled"}, {"reconcile", journal.Failed, "the job panicked: boom"},
		{"export", journal.Failed, "the service said no to key [REDACTED]"}, {"run", journal.Material, ""}, {"run", journal.OK, ""},
	}
	for i, w := range want {
		r := runs[i]
		if r.Job != w.job || r.Status != w.status || !strings.Contains(r.Error, w.err) || (w.err == "" && r.Error != "") {
			t.Errorf("run %d: %+v, want %+v", i, r, w)
		}
	}
	if runs[3].ExitCode != 3 || runs[3].Finished.Sub(runs[3].Started) != 7*time.Second || runs[3].Schedule != "nightly" || runs[3].Snapshot != "s2" {
		t.Errorf("material run %+v", runs[3])
	}
}

// A run another billsnap refuses (its lock held past lock_wait) is on
// record as refused, exit 1, and counted.
func TestARefusedRunIsOnRecord(t *testing.T) {
	env, _, clock := testEnv(t)
	ctx := context.Background()
	env.Open = func(context.Context) (Opened, error) { return nil, busy{} }
	_, err := Do(ctx, env, Spec{Name: "export"}, func(context.Context, Opened) (Outcome, error) {
		t.Fatal("the job ran without its store")
		return Outcome{}, nil
	})
	runs, _ := journal.List(env.Out.Runs(), clock.Now())
	if !errors.Is(err, busy{}) || len(runs) != 1 || runs[0].Status != journal.Refused || runs[0].ExitCode != 1 || !strings.Contains(runs[0].Error, "held") {
		t.Errorf("%v; runs %+v", err, runs)
	}
	b, _ := os.ReadFile(env.MetricsFile)
	if !strings.Contains(string(b), `billsnap_runs_total{job="export",status="refused"} 1`) {
		t.Errorf("metrics:\n%s", b)
	}
}

type busy struct{}

func (busy) Error() string   { return "DIR/billsnap.lock is held by another billsnap" }
func (busy) Refused() bool   { return true }
func (busy) Is(e error) bool { _, ok := e.(busy); return ok }

func TestMetricsTextfile(t *testing.T) {
	env, db, clock := testEnv(t)
	ctx := context.Background()
	if err := migrate.State(ctx, db); err != nil { // the manifest's tables and macros, as a read model has them
		t.Fatal(err)
	}
	db.ExecContext(ctx, "INSERT INTO snapshots (id, started, status) VALUES ('s1', now(), 'complete')")
	db.ExecContext(ctx, "INSERT INTO snapshot_tables (snapshot_id, table_name, collection, parquet_rows, complete) VALUES ('s1', 'customers', 'customers', 278, true)")
	db.ExecContext(ctx, `CREATE TABLE findings AS SELECT * FROM (VALUES ('s1', '2026-10', 'critical', 'new', false), ('s1', '2026-10', 'high', 'recurring', false),
		('s1', '2026-10', 'high', 'resolved', false), ('s1', '2026-10', 'high', 'new', true), ('s1', '', 'low', 'new', false)) AS f(snapshot_id, period, severity, status, waived)`)
	Do(ctx, env, Spec{Name: "run", Period: "2026-10"}, func(context.Context, Opened) (Outcome, error) {
		clock.Sleep(ctx, 4*time.Second)
		return Outcome{Snapshot: "s1", Material: true}, nil
	})
	Do(ctx, env, Spec{Name: "export"}, func(context.Context, Opened) (Outcome, error) { return Outcome{}, errors.New("no") })
	b, err := os.ReadFile(env.MetricsFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		`billsnap_last_run_duration_seconds{job="run"} 4`,
		`billsnap_last_run_exit_code{job="run"} 3`,
		`billsnap_last_run_exit_code{job="export"} 1`,
		`billsnap_last_success_timestamp_seconds{job="run"} 1.795316404e+09`,
		`billsnap_last_run_records{job="run"} 278`,
		`billsnap_last_run_findings{job="run",severity="critical"} 1`,
		`billsnap_last_run_findings{job="run",severity="high"} 1`,
		`billsnap_last_run_findings{job="run",severity="low"} 0`,
		`billsnap_runs_total{job="export",status="failed"} 1`,
		"# TYPE billsnap_runs_total counter",
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics file lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `billsnap_last_success_timestamp_seconds{job="export"}`) {
		t.Error("a job that never succeeded has a last success")
	}
}
