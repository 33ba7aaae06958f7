//go:build heavy

package store

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot"
)

// An analyst's session holding billsnap.duckdb open stops no job: export,
// reconcile, report and a scheduled run all complete and publish while it
// is open; the session keeps the consistent view it opened, and a reader
// that opens afterwards sees the new snapshot.
func TestAReaderHoldingTheStoreStopsNoJob(t *testing.T) {
	t.Parallel()
	e2etest.ManyProcesses(t)
	_, dir := e2etest.Exported(t, e2etest.CleanOptions)
	second := sandboxtest.Start(t, sandbox.Options{Seed: 82, Customers: 50, Planted: 1}, "")
	r := holdReadModel(t, dir)
	before := r.ask(t)
	if !strings.HasPrefix(before, "latest=") {
		t.Fatalf("the reader: %s", before)
	}
	held := e2etest.FileHash(t, filepath.Join(dir, "billsnap.duckdb"))
	for _, args := range [][]string{
		{"export", "--out", dir, "--progress", "none"},
		{"reconcile", "--out", dir},
		{"report", "--out", dir},
	} {
		if code, _, stderr := e2etest.CLI(t, second, args...); code != job.ExitOK && code != job.ExitMaterial {
			t.Errorf("%s while a reader holds the store: exit %d\n%s", args[0], code, stderr)
		}
		if got := r.ask(t); got != before {
			t.Errorf("after %s the held session sees %q, not %q", args[0], got, before)
		}
	}
	conf := filepath.Join(t.TempDir(), "billsnap.yml")
	os.WriteFile(conf, fmt.Appendf(nil, "out: %s\nprogress: none\nschedules:\n  - {name: quick, spec: '@every 1s', job: run}\n", dir), 0o644)
	sched := exec.Command(e2etest.Binary(t), "schedule", "--config", conf)
	sched.Env = append(os.Environ(), "BILLSNAP_API_KEY="+e2etest.ExportKey, "BILLSNAP_BASE_URL="+second.BaseURL(), "BILLSNAP_FRONT_URL="+second.FrontURL())
	stderr, _ := sched.StderrPipe()
	if err := sched.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sched.Process.Kill() })
	e2etest.Collect(stderr).WaitFor(t, "run found something material", 1, 90*time.Second)
	e2etest.Stop(t, sched)
	if got := r.ask(t); got != before {
		t.Errorf("after a scheduled run the held session sees %q, not %q", got, before)
	}
	fresh := readAnswer(t, dir)
	if fresh == before {
		t.Errorf("a reader opening after the publish sees %q, the snapshot before", fresh)
	}
	// The file the session opened was never written: read through the
	// session's own descriptor, its bytes are those it opened.
	if got := e2etest.FileHash(t, r.openFile(t, filepath.Join(dir, "billsnap.duckdb"))); got != held {
		t.Error("the file the session holds was written in place")
	}
}

// Every run started is on record and counted: ok, material (a
// reconciliation of planted data), failed (a wrong key), refused (the
// export lock held past lock_wait) and killed (SIGKILL mid-export, with
// the time it ran and a non-zero exit).
func TestEveryRunIsCounted(t *testing.T) {
	t.Parallel()
	e2etest.ManyProcesses(t)
	// The store begins with the shared export's run on record, ok: it is
	// the first run started.
	service, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	slow := sandboxtest.Start(t, sandbox.Options{Seed: 86, Customers: 200}, "latency=250ms")
	bin := e2etest.Binary(t)
	started := 1
	run := func(srv *sandbox.Server, args ...string) {
		t.Helper()
		started++
		cmd := exec.Command(bin, append(args, "--out", dir)...)
		cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY="+e2etest.ExportKey, "BILLSNAP_BASE_URL="+srv.BaseURL(), "BILLSNAP_FRONT_URL="+srv.FrontURL())
		cmd.Run()
	}
	run(service, "reconcile")
	wrongKey := exec.Command(bin, "export", "--out", dir, "--progress", "none")
	wrongKey.Env = append(os.Environ(), "BILLSNAP_API_KEY=not-the-key", "BILLSNAP_BASE_URL="+service.BaseURL(), "BILLSNAP_FRONT_URL="+service.FrontURL())
	wrongKey.Run()
	started++

	cfg := config.Default()
	cfg.Out, cfg.LockWait = dir, 0
	holder, err := snapshot.Open(context.Background(), cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "billsnap.yml")
	os.WriteFile(conf, []byte("lock_wait: 0s\n"), 0o644)
	run(service, "export", "--config", conf, "--progress", "none")
	holder.Close()

	started++
	killed := e2etest.ChildExport(bin, slow, dir)
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	e2etest.WaitUntil(t, 60*time.Second, func() bool { // seen alive after its start: its heartbeat ran
		runs, _ := journal.List(layout.Dir(dir).Runs(), time.Now())
		return len(runs) > 0 && runs[0].Status == journal.Running && runs[0].Alive.After(runs[0].Started)
	})
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()

	run(service, "export", "--progress", "none")
	runs, err := journal.List(layout.Dir(dir).Runs(), time.Now())
	if err != nil || len(runs) != started {
		t.Fatalf("%d runs on record, %d started (%v)", len(runs), started, err)
	}
	byStatus := map[string]int{}
	for _, r := range runs {
		byStatus[r.Status]++
		if r.Status == journal.Killed && (r.ExitCode == 0 || r.Seconds() <= 0) {
			t.Errorf("the killed run: %+v", r)
		}
	}
	want := map[string]int{journal.OK: 2, journal.Material: 1, journal.Failed: 1, journal.Refused: 1, journal.Killed: 1}
	if fmt.Sprint(byStatus) != fmt.Sprint(want) {
		t.Errorf("runs by status %v, want %v", byStatus, want)
	}
	prom := e2etest.ReadFile(t, filepath.Join(dir, "billsnap.prom"))
	total := 0
	for _, line := range strings.Split(prom, "\n") {
		if strings.HasPrefix(line, "billsnap_runs_total{") {
			var n int
			fmt.Sscanf(line[strings.LastIndexByte(line, ' ')+1:], "%d", &n)
			total += n
		}
	}
	if total != started {
		t.Errorf("billsnap_runs_total sums to %d, %d runs started:\n%s", total, started, prom)
	}
	status := e2etest.RunOut(t, service, "status", "--out", dir)
	if !strings.Contains(status, "killed    137") || !strings.Contains(status, "refused   1") {
		t.Errorf("status:\n%s", status)
	}
}

// billsnap query, each a process of its own, succeeds every time while an
// export runs, and sees the last published state.
func TestQueriesSucceedDuringAnExport(t *testing.T) {
	t.Parallel()
	e2etest.ManyProcesses(t)
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 83, Customers: 200}, "latency=5ms")
	_, dir := e2etest.Exported(t, e2etest.CleanOptions)
	bin := e2etest.Binary(t)
	export := e2etest.ChildExport(bin, srv, dir)
	if err := export.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- export.Wait() }()
	var ok, failed int
	var failures []string
	// At most 20 queries: on a busy machine the export takes longer, and
	// more queries would only make it slower still.
	running := true
	for (running && ok+failed < 20) || ok+failed < 10 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the export: %v", err)
			}
			running = false
		default:
		}
		out, err := exec.Command(bin, "query", "--out", dir, "SELECT count(*) FROM latest_invoices").CombinedOutput()
		if err != nil {
			failed++
			failures = append(failures, string(out))
			continue
		}
		ok++
	}
	if running {
		if err := <-done; err != nil {
			t.Fatalf("the export: %v", err)
		}
	}
	if failed != 0 || ok < 10 {
		t.Errorf("%d queries succeeded, %d failed: %v", ok, failed, failures)
	}
	t.Logf("%d queries during the export, all succeeded", ok)
}
