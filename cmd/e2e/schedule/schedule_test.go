package schedule

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// startSchedule starts `billsnap schedule` as a child process against srv
// with one schedule, its configuration in dir and its store in out, and
// returns it with its stderr lines.
func startSchedule(t *testing.T, srv *sandbox.Server, dir, out, spec, job string, extra ...string) (*exec.Cmd, *e2etest.Lines) {
	t.Helper()
	cfg := filepath.Join(dir, "billsnap.yml")
	body := fmt.Sprintf("out: %s\nprogress: none\nlock_wait: 30s\nschedules:\n  - {name: quick, spec: %q, job: %s}\n", out, spec, job)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(e2etest.Binary(t), append([]string{"schedule", "--config", cfg}, extra...)...)
	cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY="+e2etest.ExportKey, "BILLSNAP_BASE_URL="+srv.BaseURL(), "BILLSNAP_FRONT_URL="+srv.FrontURL())
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = &bytes.Buffer{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, e2etest.Collect(stderr)
}

var twoOrMoreMaterial = regexp.MustCompile(`billsnap_runs_total\{job="reconcile",status="material"\} ([2-9]|\d\d+)\n`)

// SIGTERM in the middle of an export: the previous snapshot (the shared
// export's) stays latest, the lock is released, the run is recorded as
// interrupted, exit 0.
func TestSIGTERMMidExport(t *testing.T) {
	t.Parallel()
	previous, out := e2etest.Exported(t, e2etest.CleanOptions)
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 82, Customers: 300}, "latency=40ms")
	cmd, logs := startSchedule(t, srv, t.TempDir(), out, "@every 1s", "export")
	e2etest.WaitUntil(t, 60*time.Second, func() bool { return srv.Requests() > 30 }) // the export is walking
	if code := e2etest.Stop(t, cmd); code != 0 {
		t.Fatalf("exit %d after SIGTERM; stderr:\n%s", code, logs)
	}
	cfg := config.Default()
	cfg.Out, cfg.LockWait = out, 0
	store, err := snapshot.Open(context.Background(), cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatalf("the lock is not released: %v", err)
	}
	defer store.Close()
	runs, _ := journal.List(layout.Dir(cfg.Out).Runs(), time.Now())
	if len(runs) != 2 || runs[0].Status != journal.Interrupted || runs[1].Status != journal.OK {
		t.Fatalf("runs %+v", runs)
	}
	var latest, failed string
	store.Update(context.Background(), func(sec *snapshot.Section) error {
		db := sec.DB()
		db.QueryRow("SELECT id FROM latest_snapshot").Scan(&latest)
		return db.QueryRow("SELECT error FROM snapshots WHERE status = 'failed'").Scan(&failed)
	})
	if latest != runs[1].Snapshot || !strings.HasPrefix(failed, "interrupted") {
		t.Errorf("latest %s (want %s), failed snapshot's error %q", latest, runs[1].Snapshot, failed)
	}
	if n := countRows(t, e2etest.OpenDB(t, cfg.Out), "SELECT count(*) FROM customers"); n != previous.AnswerKey().Tables["customers"].Count {
		t.Errorf("%d customer rows: the interrupted export left rows", n)
	}
}

func countRows(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkMetricsEndpoint reads the address from the log and checks /healthz
// and /metrics.
func checkMetricsEndpoint(t *testing.T, logs *e2etest.Lines) {
	t.Helper()
	_, line, _ := strings.Cut(logs.String(), "serving /healthz, /readyz and /metrics")
	line, _, _ = strings.Cut(line, "\n")
	_, addr, _ := strings.Cut(line, "addr=")
	for path, want := range map[string]string{"/healthz": "ok", "/metrics": `billsnap_runs_total{job="reconcile",status="material"}`} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d %.400s", path, resp.StatusCode, body)
		}
	}
}
