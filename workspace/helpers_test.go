package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
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
}

// newFixture exports the sandbox into a new store and reconciles it.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	sb := sandboxtest.Start(t, sandbox.Options{Seed: 11, Customers: 12, Planted: 2}, "")
	fx := &fixture{sb: sb}
	fx.evilID = createCustomer(t, sb, evilName)
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = sb.BaseURL(), sb.FrontURL(), t.TempDir(), "none"
	fx.cfg = cfg
	fx.export(t)
	fx.reconcile(t)
	return fx
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
func (fx *fixture) reconcile(t testing.TB) *reconcile.Report {
	t.Helper()
	return fx.reconcilePeriod(t, nil)
}

// reconcilePeriod reconciles the latest snapshot for period (nil: the
// whole snapshot).
func (fx *fixture) reconcilePeriod(t testing.TB, period *reconcile.Period) *reconcile.Report {
	t.Helper()
	opts, err := job.ReconcileOptions(fx.cfg, "", "")
	if err != nil {
		t.Fatal(err)
	}
	opts.Period = period
	var rep *reconcile.Report
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
func (fx *fixture) reportPeriod(t testing.TB, period *reconcile.Period) *reports.Input {
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
