package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

const exportKey = sandboxtest.Key

// soakFaults are the fault soak's rates per request: 5% server errors
// (500, 502, 503), 2% 429 with Retry-After, 1% bodies cut short, 1%
// connections reset, and up to 2 ms of jitter.
const soakFaults = "500=0.03,502=0.01,503=0.01,429=0.02,retry-after=2s,truncate=0.01,reset=0.01,jitter=2ms"

// cli runs billsnap with args, the sandbox's URLs and key in the
// environment, a fake clock (retries and re-walks wait no real time), and
// the tests' lake (testLake).
func cli(t *testing.T, srv *sandbox.Server, args ...string) (int, string, string) {
	t.Helper()
	vars := map[string]string{"BILLSNAP_API_KEY": exportKey, "BILLSNAP_BASE_URL": srv.BaseURL(), "BILLSNAP_FRONT_URL": srv.FrontURL()}
	var out, errb bytes.Buffer
	env := newEnv(&out, &errb, func(k string) string { return vars[k] })
	env.clock = fakeclock.New(time.Now())
	env.lake = testLake()
	env.tune = oneThread
	code := env.run(context.Background(), args)
	return code, out.String(), errb.String()
}

// runTuned is runWith with the store's DuckDB queries on one thread
// (oneThread), as cli runs billsnap.
func runTuned(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	env := newEnv(stdout, stderr, getenv)
	env.tune = oneThread
	return env.run(ctx, args)
}

// oneThread runs the store's DuckDB queries on one thread, as the tests
// of snapshot, reconcile and the workspace do: the tests' data is small,
// and DuckDB's second thread costs CPU it does not save. The heavy tier's
// crash matrix and soaks run billsnap itself, on the default.
func oneThread(c *config.Config) { c.DuckDB.Threads = 1 }

// openDB opens the read model of the store at dir, read-only.
func openDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	return readOnly(t, filepath.Join(dir, "billsnap.duckdb"))
}

const idsHash = "count(*), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256(''))"

// checkAgainstKey checks every latest_ view and every published Parquet
// table against the sandbox's answer key.
func checkAgainstKey(t *testing.T, dir string, key sandbox.AnswerKey) {
	t.Helper()
	db := openDB(t, dir)
	for table, want := range key.Tables {
		for _, from := range []string{"latest_" + table,
			fmt.Sprintf("read_parquet('%s')", filepath.Join(dir, "parquet", table, "*", "*.parquet"))} {
			var n int
			var h string
			if err := db.QueryRow("SELECT "+idsHash+" FROM "+from).Scan(&n, &h); err != nil {
				t.Fatal(err)
			}
			if n != want.Count || h != want.IDsSHA256 {
				t.Errorf("%s: %d rows, hash %.12s; answer key %d, %.12s", from, n, h, want.Count, want.IDsSHA256)
			}
		}
	}
}

// checkNothingPublished checks a failed export left no Parquet, no
// complete snapshot and no staging, and recorded the failure.
func checkNothingPublished(t *testing.T, dir string) {
	t.Helper()
	if files, _ := filepath.Glob(filepath.Join(dir, "parquet", "*", "*")); len(files) != 0 {
		t.Errorf("published after a failure: %v", files)
	}
	if _, err := os.Stat(filepath.Join(dir, ".staging")); !os.IsNotExist(err) {
		t.Errorf("staging left: %v", err)
	}
	db := openDB(t, dir)
	var latest, failed int
	db.QueryRow("SELECT (SELECT count(*) FROM latest_snapshot), (SELECT count(*) FROM snapshots WHERE status = 'failed')").Scan(&latest, &failed)
	if latest != 0 || failed != 1 {
		t.Errorf("latest snapshots %d, failed %d", latest, failed)
	}
}

// Retention after each export keeps the newest N complete snapshots, and
// of the journal the runs since the oldest kept, or at least the newest
// retention.runs: the runs pruned still count in billsnap_runs_total.
func TestExportAppliesRetention(t *testing.T) {
	t.Parallel()
	// The shared export is the first of three, its run on record.
	srv, dir := exported(t, cleanOptions)
	cfgFile := filepath.Join(dir, "c.yml")
	os.WriteFile(cfgFile, []byte("retention: {keep: 2, runs: 1}\n"), 0o644)
	notes := journal.DeliveriesIn(layout.Dir(dir).Notifications())
	notes.Add(journal.Delivery{Time: time.Now().AddDate(0, 0, -30), Target: "ops", Event: "material", Key: "S0", Findings: []string{"k"}, Result: journal.DeliverySent})
	for i := range 2 {
		if code, _, stderr := cli(t, srv, "export", "--config", cfgFile, "--out", dir, "--progress", "none"); code != job.ExitOK {
			t.Fatalf("export %d: %d %s", i, code, stderr)
		}
	}
	db := openDB(t, dir)
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
	prom := readFile(t, filepath.Join(dir, "billsnap.prom"))
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

// faultCase is an export of a sandbox with faults: its exit code and, for
// a failure, what its message must say.
type faultCase struct {
	faults string
	code   int
	stderr string
}

func exportUnderFaults(t *testing.T, cases []faultCase) {
	for _, tc := range cases {
		t.Run(tc.faults, func(t *testing.T) {
			srv := sandboxtest.Start(t, sandbox.Options{Seed: 51, Customers: 200, Planted: 1}, tc.faults)
			dir := t.TempDir()
			code, stdout, stderr := cli(t, srv, "export", "--out", dir, "--progress", "none")
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d (want %d), stderr:\n%s\nstdout:\n%s", code, tc.code, stderr, stdout)
			}
			if strings.Contains(stdout+stderr, exportKey) {
				t.Error("the key appears in the output")
			}
			switch tc.code {
			case job.ExitOK:
				checkAgainstKey(t, dir, srv.AnswerKey())
			case job.ExitFailure:
				checkNothingPublished(t, dir)
			}
		})
	}
}
