package reconcile

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ingest"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

const testKey = sandboxtest.Key

// env is an output directory exported from a sandbox.
type env struct {
	t     *testing.T
	srv   *sandbox.Server
	store *snapshot.Store
}

func newEnv(t *testing.T, o sandbox.Options) *env { return newEnvFaults(t, o, "") }

// newEnvFaults is newEnv with the sandbox's faults.
func newEnvFaults(t *testing.T, o sandbox.Options, faults string) *env {
	t.Helper()
	srv := sandboxtest.Start(t, o, faults)
	st := openStore(t, t.TempDir())
	t.Cleanup(func() { st.Close() })
	return &env{t: t, srv: srv, store: st}
}

// openStore opens a store in dir on one DuckDB thread: the tests'
// snapshots are small, and what they check does not depend on the
// threads (TestARuleOutOfMemoryIsRunAgainOnOneThread sets its own).
func openStore(t *testing.T, dir string) *snapshot.Store {
	t.Helper()
	opts := storeconfig.DefaultOptions()
	opts.Out = dir
	opts.DuckDB.Threads = 1
	st, err := snapshot.Open(context.Background(), opts, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// keyed is the answer-key test's sandbox of seed 1 (keyedOptions),
// exported and reconciled once per test binary (keyedEnv): the
// directory, the store, the sandbox, the report of the reconciliation,
// and why it could not be made. TestMain closes and removes them.
var keyed struct {
	once   sync.Once
	dir    string
	srv    *sandbox.Server
	store  *snapshot.Store
	report *findings.Report
	err    error
}

// TestMain runs the tests and closes and removes what they shared.
func TestMain(m *testing.M) {
	code := m.Run()
	if keyed.store != nil {
		keyed.store.Close()
	}
	if keyed.srv != nil {
		keyed.srv.Close()
	}
	if keyed.dir != "" {
		os.RemoveAll(keyed.dir)
	}
	os.Exit(code)
}

// keyedEnv is t's view of the keyed store, with the report of its
// reconciliation, shared: read the report, never change it. A test may
// reconcile the store again (its snapshot is the only one, so no
// reconciliation of it is stale), and must not export into it.
func keyedEnv(t *testing.T) (*env, *findings.Report) {
	t.Helper()
	keyed.once.Do(func() {
		keyed.err = errors.New("it could not be made: see the first test that failed")
		var err error
		if keyed.dir, err = os.MkdirTemp("", "billsnap-reconcile-keyed-"); err != nil {
			t.Fatal(err)
		}
		faults, _ := sandbox.ParseFaults("")
		if keyed.srv, err = sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{Data: keyedOptions(1), APIKey: testKey, Faults: faults})); err != nil {
			t.Fatal(err)
		}
		e := &env{t: t, srv: keyed.srv, store: openStore(t, keyed.dir)}
		keyed.store = e.store
		e.export()
		keyed.report, keyed.err = e.reconcile(Options{}), nil
	})
	if keyed.err != nil {
		t.Fatalf("the keyed store: %v", keyed.err)
	}
	return &env{t: t, srv: keyed.srv, store: keyed.store}, keyed.report
}

// export takes a snapshot of the sandbox as it is now.
func (e *env) export() *snapshot.Summary {
	e.t.Helper()
	clock := fakeclock.New(time.Now())
	retry := extract.Retry{MaxAttempts: 6, InitialDelay: 250 * time.Millisecond, MaxDelay: 10 * time.Second, MaxRetryAfter: 2 * time.Minute}
	c, err := extract.NewClient(extract.Options{BaseURL: e.srv.BaseURL(), FrontURL: e.srv.FrontURL(), Secret: extract.NewSecret(testKey),
		Concurrency: 8, Timeout: time.Minute, Retry: retry, Clock: clock})
	if err != nil {
		e.t.Fatal(err)
	}
	colls, _ := catalog.Collections(nil)
	w := &extract.Walker{Client: c, BaseURL: e.srv.BaseURL(), FrontURL: e.srv.FrontURL(), Prefetch: 8, MaxRewalks: 2, Clock: clock}
	ctx := context.Background()
	run, err := e.store.Begin(ctx, snapshot.Meta{BaseURL: w.BaseURL, FrontURL: w.FrontURL})
	if err != nil {
		e.t.Fatal(err)
	}
	sum, err := run.Finish(ctx, ingest.Walk(ctx, w, colls, run), c.Redact)
	if err != nil {
		e.t.Fatal(err)
	}
	return sum
}

// put sends a PUT to the sandbox's API, as a user of the service would.
func (e *env) put(path, body string) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPut, e.srv.BaseURL()+path, strings.NewReader(body))
	req.Header.Set("Authorization", extract.NewSecret(testKey).Authorization())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("PUT %s: %s", path, resp.Status)
	}
}

// only keeps the findings of one rule.
func only(fs []findings.Finding, rule string) []findings.Finding {
	var out []findings.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// reconcile runs the shipped rules with o's other settings.
func (e *env) reconcile(o Options) *findings.Report {
	e.t.Helper()
	r, err := e.run(o)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) run(o Options) (*findings.Report, error) {
	o = e.options(o)
	rd, err := e.store.Read(context.Background())
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	r, err := Run(context.Background(), rd, o)
	if err != nil {
		return nil, err
	}
	return r, e.store.Keep(context.Background(), rd)
}

// options fills in o's defaults.
func (e *env) options(o Options) Options {
	if o.Rules == nil {
		rules, err := Rules("")
		if err != nil {
			e.t.Fatal(err)
		}
		o.Rules = rules
	}
	if o.Grace == 0 {
		o.Grace = 48 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Materiality.Severities == nil {
		o.Materiality = findings.DefaultMateriality()
	}
	return o
}

// query runs fn on the store's state.
func (e *env) query(fn func(db *sql.DB)) {
	e.t.Helper()
	err := e.store.Update(context.Background(), func(sec *snapshot.Section) error {
		db := sec.DB()
		fn(db)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}
