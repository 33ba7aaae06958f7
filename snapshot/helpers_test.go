package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/ingest"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

const testKey = sandboxtest.Key

// testCfg is a store's options and the sandbox its snapshots are taken
// from.
type testCfg struct {
	storeconfig.Options
	BaseURL, FrontURL string
	MaxRewalks        int
	Prefetch          int
}

// testConfig is a store in out of srv's snapshots: parts of 1,000 rows,
// and DuckDB's queries on one thread, as the tests' snapshots are small
// and none checks the threads (TestDuckDBsThreadsShareTheCappedArenas
// opens a DuckDB of its own on four).
func testConfig(srv *sandbox.Server, out string) testCfg {
	o := storeconfig.DefaultOptions()
	o.Out = out
	o.Parquet.RowsPerFile = 1000
	o.DuckDB.Threads = 1
	return testCfg{Options: o, BaseURL: srv.BaseURL(), FrontURL: srv.FrontURL(), MaxRewalks: 2, Prefetch: 8}
}

// published is a store holding one complete snapshot, taken once per
// test binary (publishedStore) for the tests that only read it: its
// configuration, the snapshot's summary, the sandbox's answer key, and
// why it could not be taken. TestMain removes it.
var published struct {
	once sync.Once
	cfg  testCfg
	sum  *Summary
	key  sandbox.AnswerKey
	err  error
}

// TestMain runs the tests and removes the store they shared.
func TestMain(m *testing.M) {
	code := m.Run()
	if published.cfg.Out != "" {
		os.RemoveAll(published.cfg.Out)
	}
	os.Exit(code)
}

// publishedStore is the published store, shared: read it, never change
// it (its sandbox is gone once the first test that asked for it ends).
func publishedStore(t *testing.T) (testCfg, *Summary, sandbox.AnswerKey) {
	t.Helper()
	published.once.Do(func() {
		published.err = errors.New("it could not be taken: see the first test that failed")
		dir, err := os.MkdirTemp("", "billsnap-snapshot-published-")
		if err != nil {
			t.Fatal(err)
		}
		srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 30}, "")
		published.cfg = testConfig(srv, dir)
		if published.sum, err = take(t, published.cfg); err != nil {
			t.Fatal(err)
		}
		published.key, published.err = srv.AnswerKey(), nil
	})
	if published.err != nil {
		t.Fatalf("the published store: %v", published.err)
	}
	return published.cfg, published.sum, published.key
}

func openStore(t *testing.T, cfg testCfg) *Store {
	t.Helper()
	s, err := Open(context.Background(), cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// take exports the sandbox into cfg.Out.
func take(t *testing.T, cfg testCfg) (*Summary, error) {
	t.Helper()
	s := openStore(t, cfg)
	defer s.Close()
	return takeWith(t, s, cfg)
}

// takeWith takes a snapshot of cfg's sandbox into s as job does: the
// walks, then the publish or the failure.
func takeWith(t *testing.T, s *Store, cfg testCfg) (*Summary, error) {
	t.Helper()
	ctx := context.Background()
	w := walker(t, cfg)
	run, err := s.Begin(ctx, Meta{BaseURL: w.BaseURL, FrontURL: w.FrontURL})
	if err != nil {
		return nil, err
	}
	return run.Finish(ctx, ingest.Walk(ctx, w, collections(t, cfg), run), w.Client.Redact)
}

func walker(t *testing.T, cfg testCfg) *extract.Walker {
	t.Helper()
	clock := fakeclock.New(time.Now())
	retry := extract.Retry{MaxAttempts: 6, InitialDelay: 250 * time.Millisecond, MaxDelay: 10 * time.Second, MaxRetryAfter: 2 * time.Minute}
	c, err := extract.NewClient(extract.Options{BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Secret: extract.NewSecret(testKey),
		Concurrency: 8, Timeout: time.Minute, Retry: retry, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return &extract.Walker{Client: c, BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Prefetch: cfg.Prefetch, MaxRewalks: cfg.MaxRewalks, Clock: clock}
}

func collections(t *testing.T, cfg testCfg) []catalog.Collection {
	t.Helper()
	colls, err := catalog.Collections(cfg.Collections)
	if err != nil {
		t.Fatal(err)
	}
	return colls
}

// readDB opens the read model of cfg's store, read-only, as a reader
// does, until the test ends.
func readDB(t *testing.T, cfg testCfg) *sql.DB {
	t.Helper()
	db, err := OpenRead(context.Background(), cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// inState runs fn on the store's state, in a section of it.
func inState(t *testing.T, s *Store, fn func(db *sql.DB)) {
	t.Helper()
	if err := s.Update(context.Background(), func(sec *Section) error { fn(sec.DB()); return nil }); err != nil {
		t.Fatal(err)
	}
}
