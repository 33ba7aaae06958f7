package state

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
)

// Engine is the DuckDB instance a store's sections and readings run in.
// It is started at the first and kept until the store closes: starting
// and stopping an instance cost most of a section that opened one of its
// own (docs/store.md has the measurement). A section attaches its copy of
// the state as AttachedAs (Open), a reading the state itself, read-only
// (OpenReading); each detaches it, with whatever else it attached, when
// it ends (End): the detach checkpoints a section's copy, so it is whole
// before it is renamed over the state. One section or reading holds the
// kept instance at a time; another that begins meanwhile (a reading open
// while a section runs) gets an instance of its own, stopped at its end.
type Engine struct {
	mu          sync.Mutex
	cfg         Settings
	tmp         string // where the instances' temp_directory go, one each
	c           *duckdb.Connector
	ctmp        string // the kept instance's temp_directory
	held        bool
	keptThreads int // the kept instance's threads
	leases      map[*sql.DB]lease
	n           int // instances started
}

// NewEngine is an engine whose instances have the settings of cfg and
// spill to folders under tmp. No instance starts before the first lease.
func NewEngine(cfg Settings, tmp string) *Engine { return &Engine{cfg: cfg, tmp: tmp} }

// Settings are what an instance of DuckDB and the files attached to it
// take of the store's DuckDB options.
type Settings struct {
	Threads      int    // DuckDB's threads for a reading's statements (a section's run on sectionThreads)
	MemoryLimit  string // DuckDB's memory_limit
	RowGroupSize int    // the rows per row group of an attached file
}

// lease is the instance one database of the engine's runs in: the kept
// one, or one of its own (own), stopped at the end.
type lease struct {
	c   *duckdb.Connector
	own bool
	tmp string
}

// duckDSN is the DSN of an instance with the settings of cfg, spilling to
// tmp. Row order means nothing in billsnap's tables; not keeping it lets
// DuckDB load with less memory. The allocator settings make DuckDB's
// allocator (jemalloc) hand freed memory back within 8 MB instead of
// 128 MB, which lowers the export's peak RSS (docs/benchmarks.md has the
// measurement).
func duckDSN(tmp string, cfg Settings) string {
	return "?" + url.Values{"threads": {fmt.Sprint(cfg.Threads)}, "memory_limit": {cfg.MemoryLimit},
		"preserve_insertion_order": {"false"}, "temp_directory": {tmp},
		"allocator_flush_threshold": {"8MB"}, "allocator_bulk_deallocation_flush_threshold": {"8MB"},
		"allocator_background_threads": {"true"}}.Encode()
}

// attachSQL attaches the database file at path as AttachedAs with the
// row group size of cfg and, when the file is created, blocks of
// blockSize bytes (0: DuckDB's default, 256 KiB).
func attachSQL(path string, cfg Settings, blockSize int) string {
	opts := fmt.Sprintf("ROW_GROUP_SIZE %d", cfg.RowGroupSize)
	if blockSize > 0 {
		opts += fmt.Sprintf(", BLOCK_SIZE %d", blockSize)
	}
	return fmt.Sprintf("ATTACH IF NOT EXISTS %s AS %s (%s)", SQLString(path), AttachedAs, opts)
}

// Open gives a section's database: the file at path, attached as
// AttachedAs and used by every connection, created with blocks of
// blockSize bytes (0: DuckDB's default) when it does not exist.
// Its statements run on one thread (sectionThreads).
func (e *Engine) Open(path string, blockSize int) (*sql.DB, error) {
	return e.begin(path, attachSQL(path, e.cfg, blockSize), sectionThreads)
}

// OpenReading gives a reading's database: the file at path, attached
// read-only as AttachedAs and used by every connection. Its statements
// (reconcile's rules, over a snapshot) run on the configured threads.
func (e *Engine) OpenReading(path string) (*sql.DB, error) {
	return e.begin(path, fmt.Sprintf("ATTACH IF NOT EXISTS %s AS %s (READ_ONLY)", SQLString(path), AttachedAs), e.cfg.Threads)
}

// sectionThreads are the threads a section's statements run on. A
// section keeps billsnap's own tables, whose every statement is small:
// a second thread would only hand each one's tasks over and back
// (docs/benchmarks.md has the measurement).
const sectionThreads = 1

// begin leases an instance on threads threads and opens a database over
// it whose connections run attach and use AttachedAs.
func (e *Engine) begin(path, attach string, threads int) (*sql.DB, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.lease(threads)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(attached{c: l.c, init: []string{attach, "USE " + AttachedAs}, path: path})
	if e.leases == nil {
		e.leases = map[*sql.DB]lease{}
	}
	e.leases[db] = l
	return db, nil
}

// lease gives the kept instance, started if need be, or an instance of
// its own when the kept one is held. Each instance spills to a folder of
// its own: instances of several billsnaps, or of one, may spill at once.
func (e *Engine) lease(threads int) (lease, error) {
	if !e.held && e.c != nil {
		if err := e.setThreads(threads); err != nil {
			return lease{}, err
		}
		e.held = true
		return lease{c: e.c}, nil
	}
	e.n++
	tmp := filepath.Join(e.tmp, fmt.Sprintf("%d.%d", os.Getpid(), e.n))
	// Made here, with the folders above it, before the instance may spill.
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return lease{}, fmt.Errorf("billsnap's state: %w", err)
	}
	cfg := e.cfg
	cfg.Threads = threads
	c, err := duckdb.NewConnector(duckDSN(tmp, cfg), nil)
	if err != nil {
		return lease{}, err
	}
	if e.held {
		return lease{c: c, own: true, tmp: tmp}, nil
	}
	e.c, e.ctmp, e.held, e.keptThreads = c, tmp, true, threads
	return lease{c: c}, nil
}

// setThreads sets the kept instance's threads to n, unless it has them.
func (e *Engine) setThreads(n int) error {
	if e.keptThreads == n {
		return nil
	}
	db := sql.OpenDB(attached{c: e.c})
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("SET threads = %d", n)); err != nil {
		return fmt.Errorf("billsnap's state: %w", err)
	}
	e.keptThreads = n
	return nil
}

// End closes database db and detaches every database it attached, also
// when ctx is cancelled. An instance of its own is stopped; the kept
// instance, when it cannot detach them, too, and the next lease starts
// another.
func (e *Engine) End(ctx context.Context, db *sql.DB) error {
	err := db.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	l, ok := e.leases[db]
	if !ok {
		return err
	}
	delete(e.leases, db)
	if l.own {
		return errors.Join(err, l.c.Close(), os.RemoveAll(l.tmp))
	}
	e.held = false
	derr := detachAll(context.WithoutCancel(ctx), l.c)
	if derr != nil {
		e.stop()
	}
	if err == nil {
		err = derr
	}
	return err
}

// stop stops the kept instance and removes its temp_directory.
func (e *Engine) stop() error {
	err := e.c.Close()
	e.c = nil
	return errors.Join(err, os.RemoveAll(e.ctmp))
}

// detachAll detaches every database but instance c's own.
func detachAll(ctx context.Context, c *duckdb.Connector) error {
	db := sql.OpenDB(attached{c: c})
	defer db.Close()
	names, err := Strings(ctx, db, "SELECT database_name FROM duckdb_databases() WHERE NOT internal AND database_name <> 'memory'")
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, err := db.ExecContext(ctx, "DETACH DATABASE IF EXISTS "+QuoteIdent(name)); err != nil {
			return fmt.Errorf("billsnap's state: detaching %s: %w", name, err)
		}
	}
	return nil
}

// Close stops the kept instance.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c == nil {
		return nil
	}
	return e.stop()
}

// attached connects to the engine's instance and runs init on each new
// connection. Closing a database over it leaves the instance running (it
// is no io.Closer).
type attached struct {
	c    *duckdb.Connector
	init []string
	path string
}

func (a attached) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := a.c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	for _, q := range a.init {
		if _, err := conn.(driver.ExecerContext).ExecContext(ctx, q, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("duckdb %s: %w", a.path, err)
		}
	}
	return conn, nil
}

func (a attached) Driver() driver.Driver { return a.c.Driver() }

// Attached are the databases the kept instance has attached, outside a
// section or reading: none, when each ended as End says; running is
// false when no instance is kept.
func (e *Engine) Attached(ctx context.Context) (names []string, running bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c == nil {
		return nil, false, nil
	}
	db := sql.OpenDB(attached{c: e.c})
	defer db.Close()
	names, err = Strings(ctx, db, "SELECT database_name FROM duckdb_databases() WHERE NOT internal AND database_name <> 'memory'")
	return names, true, err
}
