//go:build heavy

package store

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
)

// Each fault of the sandbox alone: the export completes, exact, or fails
// with the exit code and message the fault calls for, nothing published;
// a NextPage to another host gets no request. The heavy tier adds the
// faults a retry or a walk again gets through (TestExportThroughEachRecoverableFault).
func TestExportUnderEachFault(t *testing.T) {
	t.Parallel()
	var foreign atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { foreign.Add(1) }))
	defer other.Close()
	exportUnderFaults(t, []faultCase{
		{"html=1", job.ExitFailure, "not JSON"},
		{"loop=Invoices@2", job.ExitFailure, "collection invoices, page 2, GET http://127.0.0.1"},
		{"foreign=Customers@1,foreign-host=" + other.URL, job.ExitFailure, "NextPage points to another host"},
		{"oversize=Customers@2", job.ExitFailure, "collection customers, page 2"},
		{"totalcount=Contacts", job.ExitMaterial, "incomplete"},
	})
	if foreign.Load() != 0 {
		t.Errorf("the foreign host got %d requests", foreign.Load())
	}
}

// Retention after each export keeps the newest N complete snapshots, and
// of the journal the runs since the oldest kept, or at least the newest
// retention.runs: the runs pruned still count in billsnap_runs_total.
func TestExportAppliesRetention(t *testing.T) {
	t.Parallel()
	// The shared export is the first of three, its run on record.
	srv, dir := e2etest.Exported(t, e2etest.CleanOptions)
	cfgFile := filepath.Join(dir, "c.yml")
	os.WriteFile(cfgFile, []byte("retention: {keep: 2, runs: 1}\n"), 0o644)
	notes := journal.DeliveriesIn(layout.Dir(dir).Notifications())
	notes.Add(journal.Delivery{Time: time.Now().AddDate(0, 0, -30), Target: "ops", Event: "material", Key: "S0", Findings: []string{"k"}, Result: journal.DeliverySent})
	for i := range 2 {
		if code, _, stderr := e2etest.CLI(t, srv, "export", "--config", cfgFile, "--out", dir, "--progress", "none"); code != job.ExitOK {
			t.Fatalf("export %d: %d %s", i, code, stderr)
		}
	}
	db := e2etest.OpenDB(t, dir)
	var n int
	db.QueryRow("SELECT count(*) FROM snapshots WHERE status = 'complete'").Scan(&n)
	if parts, _ := filepath.Glob(filepath.Join(dir, "parquet", "customers", "*")); n != 2 || len(parts) != 2 {
		t.Errorf("%d complete snapshots, %d partitions; want 2 and 2", n, len(parts))
	}
	// The third export pruned the first two runs: the second started
	// before the oldest snapshot kept (its own), and runs: 1 keeps only
	// the third, which was running.
	runs, _ := journal.List(layout.Dir(dir).Runs(), time.Now())
	if files, _ := filepath.Glob(filepath.Join(layout.Dir(dir).Runs(), "*.json")); len(runs) != 1 || len(files) != 1 {
		t.Errorf("%d runs listed, %d files in the journal; want the last export's alone", len(runs), len(files))
	}
	prom := e2etest.ReadFile(t, filepath.Join(dir, "billsnap.prom"))
	if !strings.Contains(prom, `billsnap_runs_total{job="export",status="ok"} 3`) {
		t.Errorf("the runs pruned no longer count:\n%s", prom)
	}
	// The month-old delivery is folded: counted, and what it announced kept.
	ds, _ := notes.List()
	told, _ := journal.Announced(ds, "ops")
	if len(ds) != 2 || ds[0].Result != journal.DeliveryPruned || !ds[1].Folded || told["k"].IsZero() ||
		!strings.Contains(prom, `billsnap_notifications_total{event="material",result="sent",target="ops"} 1`) {
		t.Errorf("the notifications record after retention: %+v\n%s", ds, prom)
	}
}
