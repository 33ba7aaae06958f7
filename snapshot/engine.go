package snapshot

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
)

// engine is the DuckDB instance a store's sections run in. It is started
// at the first section and kept until the store closes: starting and
// stopping an instance cost most of a section that opened one of its own
// (docs/store.md has the measurement). A section attaches its copy of the
// state as attachedAs (open), and detaches it, with whatever else the
// section attached, when it ends (end): the detach checkpoints the copy,
// so it is whole before it is renamed over the state.
type engine struct {
	mu  sync.Mutex
	cfg DuckDB
	tmp string // the instance's temp_directory
	c   *duckdb.Connector
}

// duckDSN is the DSN of an instance with the settings of cfg, spilling to
// tmp. Row order means nothing in billsnap's tables; not keeping it lets
// DuckDB load with less memory. The allocator settings make DuckDB's
// allocator (jemalloc) hand freed memory back within 8 MB instead of
// 128 MB, which lowers the export's peak RSS (docs/benchmarks.md has the
// measurement).
func duckDSN(tmp string, cfg DuckDB) string {
	return "?" + url.Values{"threads": {fmt.Sprint(cfg.Threads)}, "memory_limit": {cfg.MemoryLimit},
		"preserve_insertion_order": {"false"}, "temp_directory": {tmp},
		"allocator_flush_threshold": {"8MB"}, "allocator_bulk_deallocation_flush_threshold": {"8MB"},
		"allocator_background_threads": {"true"}}.Encode()
}

// attachSQL attaches the database file at path as attachedAs with the
// row group size of cfg and, when the file is created, blocks of
// blockSize bytes (0: DuckDB's default, 256 KiB).
func attachSQL(path string, cfg DuckDB, blockSize int) string {
	opts := fmt.Sprintf("ROW_GROUP_SIZE %d", cfg.RowGroupSize)
	if blockSize > 0 {
		opts += fmt.Sprintf(", BLOCK_SIZE %d", blockSize)
	}
	return fmt.Sprintf("ATTACH IF NOT EXISTS %s AS %s (%s)", sqlString(path), attachedAs, opts)
}

// open gives the section's database: the file at path, attached as
// attachedAs and used by every connection.
func (e *engine) open(path string, blockSize int) (*sql.DB, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c == nil {
		c, err := duckdb.NewConnector(duckDSN(e.tmp, e.cfg), nil)
		if err != nil {
			return nil, err
		}
		e.c = c
	}
	return sql.OpenDB(attached{c: e.c, init: []string{attachSQL(path, e.cfg, blockSize), "USE " + attachedAs}, path: path}), nil
}

// end closes the section's database db and detaches every database the
// section attached, also when ctx is cancelled. An instance that cannot
// detach them is closed, and the next section starts another.
func (e *engine) end(ctx context.Context, db *sql.DB) error {
	err := db.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c == nil {
		return err
	}
	derr := e.detachAll(context.WithoutCancel(ctx))
	if derr != nil {
		e.c.Close()
		e.c = nil
	}
	if err == nil {
		err = derr
	}
	return err
}

// detachAll detaches every database but the instance's own.
func (e *engine) detachAll(ctx context.Context) error {
	db := sql.OpenDB(attached{c: e.c})
	defer db.Close()
	names, err := queryStrings(ctx, db, "SELECT database_name FROM duckdb_databases() WHERE NOT internal AND database_name <> 'memory'")
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, err := db.ExecContext(ctx, "DETACH DATABASE IF EXISTS "+quoteIdent(name)); err != nil {
			return fmt.Errorf("billsnap's state: detaching %s: %w", name, err)
		}
	}
	return nil
}

// quoteIdent quotes a DuckDB identifier.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// close stops the instance.
func (e *engine) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c == nil {
		return nil
	}
	err := e.c.Close()
	e.c = nil
	return err
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
