package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/workspace/guard/guardtest"
)

// evilName is a customer's name that must reach every page as text.
const evilName = `<script>alert(1)</script>`

// fixture is a store exported from a sandbox with planted cases (and a
// customer named evilName) and reconciled, with the sandbox still up.
type fixture struct {
	cfg     config.Config
	sb      *sandbox.Server
	evilID  string
	firstID string
	// reconciled is the report of the reconciliation the store was made
	// with, shared by every fixture: read it, never change it.
	reconciled *findings.Report
}

// fixtureOptions is every fixture's sandbox.
var fixtureOptions = sandbox.Options{Seed: 11, Customers: 12, Planted: 2}

// shared is the fixture's store made once per test binary (sharedStore),
// which newFixture copies: the sandbox's clock, the directory, evilName's
// customer ID, the report of its reconciliation, and why it could not be
// made. TestMain removes it.
var shared struct {
	once   sync.Once
	now    time.Time
	dir    string
	evilID string
	report *findings.Report
	err    error
}

// TestMain runs the tests and removes the store they shared.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// newFixture gives a new store in which the sandbox is exported and
// reconciled (fixture.reconciled), and the sandbox, as a test may change both: a copy of the
// store made once per test binary (sharedStore), from a sandbox equal to
// the one it starts (its clock the same, evilName's customer added with
// the same ID). The copy's read model is published again at its own path
// (its views name the directory), as after a move.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	sharedStore(t)
	if shared.err != nil {
		t.Fatalf("the fixtures' shared store: %v", shared.err)
	}
	o := fixtureOptions
	o.Now = shared.now
	fx := &fixture{sb: sandboxtest.Start(t, o, ""), reconciled: shared.report}
	if fx.evilID = createCustomer(t, fx.sb, evilName); fx.evilID != shared.evilID {
		t.Fatalf("the sandbox gave %s the ID %s, the shared store's sandbox %s", evilName, fx.evilID, shared.evilID)
	}
	fx.cfg = fixtureConfig(fx.sb, t.TempDir())
	if err := os.CopyFS(fx.cfg.Out, os.DirFS(shared.dir)); err != nil {
		t.Fatal(err)
	}
	store, err := snapshot.Open(context.Background(), fx.cfg.Options, quiet, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.UpdateAndPublish(context.Background(), func(*snapshot.Section) error { return nil }); err != nil {
		t.Fatal(err)
	}
	return fx
}

// sharedStore makes the shared store once, exporting a sandbox of
// fixtureOptions with evilName's customer added and reconciling it, and
// leaves shared.err set if it could not (the first caller fails with why).
func sharedStore(t testing.TB) {
	shared.once.Do(func() {
		shared.err = errors.New("it could not be made: see the first test that failed")
		shared.now = time.Now()
		dir, err := os.MkdirTemp("", "billsnap-workspace-fixture-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir = dir
		o := fixtureOptions
		o.Now = shared.now
		sb := sandboxtest.Start(t, o, "")
		fx := &fixture{sb: sb, evilID: createCustomer(t, sb, evilName), cfg: fixtureConfig(sb, dir)}
		fx.export(t)
		shared.report = fx.reconcile(t)
		shared.evilID, shared.err = fx.evilID, nil
	})
}

// fixtureConfig is the configuration of a fixture's store out, exported
// from sb, its DuckDB queries on one thread: the store is small, and no
// test of the workspace checks the threads.
func fixtureConfig(sb *sandbox.Server, out string) config.Config {
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = sb.BaseURL(), sb.FrontURL(), out, "none"
	cfg.DuckDB.Threads = 1
	return cfg
}

// createCustomer adds a customer to the sandbox through its API.
func createCustomer(t testing.TB, sb *sandbox.Server, name string) string {
	t.Helper()
	var c struct{ ID string }
	sandboxCall(t, sb, http.MethodPost, "/v3/customers", map[string]string{"FullName": name, "CurrencyCode": "EUR"}, http.StatusCreated, &c)
	return c.ID
}

// sandboxCall sends a request to the sandbox's API, wants status back and
// decodes the answer into out.
func sandboxCall(t testing.TB, sb *sandbox.Server, method, path string, body any, status int, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, sb.BaseURL()+path, bytes.NewReader(b))
	req.Header.Set("Authorization", extract.NewSecret(sandboxtest.Key).Authorization())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// export takes a snapshot of the sandbox into the store.
func (fx *fixture) export(t testing.TB) {
	t.Helper()
	svc := job.Service{Secret: extract.NewSecret(sandboxtest.Key), Log: quiet, Clock: fakeclock.New(time.Now())}
	_, err := job.InStore(context.Background(), fx.cfg, job.Spec{Name: "export", ExportLock: true}, quiet, func(s string) string { return s }, nil,
		func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
			sum, req, err := job.Export(ctx, fx.cfg, svc, store)
			return job.ExportOutcome(sum, req), err
		})
	if err != nil {
		t.Fatal(err)
	}
}

// reconcile reconciles the latest snapshot as `billsnap reconcile` does,
// waivers of the ledger included, and returns the report.
func (fx *fixture) reconcile(t testing.TB) *findings.Report {
	t.Helper()
	return fx.reconcilePeriod(t, nil)
}

// reconcilePeriod reconciles the latest snapshot for period (nil: the
// whole snapshot).
func (fx *fixture) reconcilePeriod(t testing.TB, period *findings.Period) *findings.Report {
	t.Helper()
	opts, err := job.ReconcileOptions(fx.cfg, "", "")
	if err != nil {
		t.Fatal(err)
	}
	opts.Period = period
	var rep *findings.Report
	_, err = job.InStore(context.Background(), fx.cfg, job.Spec{Name: "reconcile"}, quiet, func(s string) string { return s }, nil,
		func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
			var err error
			rep, err = job.Reconcile(ctx, store, opts, quiet, nil)
			if err != nil {
				return job.Outcome{}, err
			}
			return job.ReconcileOutcome(rep), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// report reconciles and writes the reports as billsnap report does, and
// returns what they show.
func (fx *fixture) report(t testing.TB) *reports.Input {
	t.Helper()
	return fx.reportPeriod(t, nil)
}

// reportPeriod reconciles period (nil: the whole snapshot) and writes its
// reports as billsnap report --period does.
func (fx *fixture) reportPeriod(t testing.TB, period *findings.Period) *reports.Input {
	t.Helper()
	opts, err := job.ReconcileOptions(fx.cfg, "", "")
	if err != nil {
		t.Fatal(err)
	}
	opts.Period = period
	var in *reports.Input
	_, err = job.InStore(context.Background(), fx.cfg, job.Spec{Name: "report"}, quiet, func(s string) string { return s }, nil,
		func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
			var err error
			in, _, err = job.Report(ctx, fx.cfg, store, opts, job.ReportSpec{Formats: []string{"md", "xlsx"}}, quiet)
			return job.Outcome{}, err
		})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// first is the ID of the store's oldest snapshot.
func (fx *fixture) first(t testing.TB) string {
	t.Helper()
	if fx.firstID == "" {
		db, err := snapshot.OpenRead(context.Background(), fx.cfg.Options)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.QueryRow("SELECT min(id) FROM snapshots").Scan(&fx.firstID); err != nil {
			t.Fatal(err)
		}
	}
	return fx.firstID
}

// serve starts the workspace over the fixture's store on a loopback port.
func (fx *fixture) serve(t testing.TB, token string) *httptest.Server {
	t.Helper()
	return fx.serveWith(t, func(o *Options) { o.Token = token })
}

// serveWith starts the workspace with the options set changes.
func (fx *fixture) serveWith(t testing.TB, set func(*Options)) *httptest.Server {
	t.Helper()
	opts, err := job.ReconcileOptions(fx.cfg, "", "")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Store: fx.cfg.Options, Reconcile: opts, Ledger: ledger.New(layout.Dir(fx.cfg.Out).Ledger(), time.Now),
		Trend: 6, PageSize: 25, Log: quiet, Now: time.Now}
	set(&o)
	ws, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ws.Handler())
	t.Cleanup(func() {
		srv.Close()
		ws.Close()
	})
	return srv
}

// call is one request to the workspace.
type call struct {
	method, path, body, contentType string
	header                          map[string]string
}

type answer struct {
	status int
	header http.Header
	body   string
}

// do sends c to srv, redirects not followed.
func do(t testing.TB, srv *httptest.Server, c call) answer {
	t.Helper()
	a := guardtest.Do(t, srv.URL, guardtest.Call{Method: c.method, Path: c.path, Body: c.body, ContentType: c.contentType, Header: c.header})
	return answer{status: a.Status, header: a.Header, body: a.Body}
}

// getJSON gets path and decodes its JSON into v, wanting 200.
func getJSON(t testing.TB, srv *httptest.Server, path string, v any) {
	t.Helper()
	a := do(t, srv, call{path: path})
	if a.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, a.status, a.body)
	}
	if err := json.Unmarshal([]byte(a.body), v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, a.body)
	}
}
