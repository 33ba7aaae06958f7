//go:build heavy

package schedule

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// The schedule runs its job each time it fires, serves /healthz and
// /metrics, and stops cleanly on SIGTERM; status and the metrics file
// count its runs. The job is a reconciliation of the shared export, which
// is material: what a scheduled run (export, reconcile, reports) does is
// TestAScheduledRunIsOneLine's and TestAReaderHoldingTheStoreStopsNoJob's.
func TestScheduleRunsTwiceAndStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	srv, out := e2etest.Exported(t, e2etest.ExportedOptions)
	dir := t.TempDir()
	cmd, logs := startSchedule(t, srv, dir, out, "@every 2s", "reconcile", "--listen", "127.0.0.1:0")
	logs.WaitFor(t, "run found something material", 2, 90*time.Second)
	checkMetricsEndpoint(t, logs)
	if code := e2etest.Stop(t, cmd); code != 0 {
		t.Fatalf("exit %d after SIGTERM; stderr:\n%s", code, logs)
	}
	if !strings.Contains(logs.String(), "msg=stopped") {
		t.Errorf("no clean stop logged:\n%s", logs)
	}
	var status bytes.Buffer
	code := e2etest.RunWith(context.Background(), []string{"status", "--config", filepath.Join(dir, "billsnap.yml")}, &status, &status, e2etest.NoEnv)
	if code != job.ExitOK || strings.Count(status.String(), " quick ") < 3 || strings.Count(status.String(), " material ") < 2 {
		t.Errorf("status: exit %d\n%s", code, status.String())
	}
	// On a busy machine a third run may start before SIGTERM and be
	// interrupted: the last run's findings are there only when it was
	// material.
	prom, err := os.ReadFile(filepath.Join(out, "billsnap.prom"))
	material := strings.Contains(string(prom), `billsnap_last_run_exit_code{job="reconcile"} 3`+"\n")
	findings := strings.Contains(string(prom), `billsnap_last_run_findings{job="reconcile",severity="critical"}`)
	if err != nil || material != findings || !twoOrMoreMaterial.Match(prom) {
		t.Errorf("metrics file: %v\n%s", err, prom)
	}
}
