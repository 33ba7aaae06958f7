package snapshot

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/crashpoint"
)

// Snapshot statuses.
const (
	StatusRunning    = "running"    // being walked
	StatusPublishing = "publishing" // in DuckDB, Parquet being renamed into place
	StatusComplete   = "complete"
	StatusIncomplete = "incomplete" // a collection stayed inconsistent
	StatusFailed     = "failed"
)

// Store is an output directory: DuckDB file, Parquet tree, staging area.
type Store struct {
	tables     []Table // Tables, with the configuration's fields applied
	dir        string
	db         *sql.DB
	parquetDir string
	tree       tree
	stagingDir string
	pq         config.Parquet
	duck       config.DuckDB
	lock       *os.File
	log        *slog.Logger
	now        func() time.Time
}

// Open takes the directory's lock, opens (or creates) the database and its
// tables, and finishes or cleans up what an interrupted run left.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger, now func() time.Time) (*Store, error) {
	tables, err := ApplyFields(cfg.Fields)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	lock, err := lockDir(filepath.Join(cfg.Out, "billsnap.lock"), cfg.LockWait)
	if err != nil {
		return nil, err
	}
	parquetDir := filepath.Join(cfg.Out, cfg.Parquet.Dir)
	s := &Store{tables: tables, dir: cfg.Out, parquetDir: parquetDir, tree: newTree(parquetDir), stagingDir: filepath.Join(cfg.Out, ".staging"),
		pq: cfg.Parquet, duck: cfg.DuckDB, lock: lock, log: log, now: now}
	if s.db, err = openDuckDB(filepath.Join(cfg.Out, cfg.DuckDB.File), cfg.DuckDB); err == nil {
		err = s.migrate(ctx)
	}
	if err == nil {
		err = s.recover(ctx)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// table is the store's table called name.
func (s *Store) table(name string) (Table, bool) {
	for _, t := range s.tables {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// attachedAs is the name the database file is attached under.
const attachedAs = "billsnap"

// openDuckDB opens the database file at path with the settings of cfg.
// Every connection attaches the file (once per DuckDB instance) and uses
// it, because only ATTACH takes a row group size. Row order means nothing
// in these tables; not keeping it lets DuckDB load with less memory. The
// allocator settings make DuckDB's allocator (jemalloc) hand freed memory
// back within 8 MB instead of 128 MB: over a 1M-record export, peak RSS
// 240-247 MB against 248-268 MB, no slower (README, Benchmark).
func openDuckDB(path string, cfg config.DuckDB) (*sql.DB, error) {
	dsn := "?" + url.Values{"threads": {fmt.Sprint(cfg.Threads)}, "memory_limit": {cfg.MemoryLimit},
		"preserve_insertion_order": {"false"}, "temp_directory": {path + ".tmp"},
		"allocator_flush_threshold": {"8MB"}, "allocator_bulk_deallocation_flush_threshold": {"8MB"},
		"allocator_background_threads": {"true"}}.Encode()
	attach := fmt.Sprintf("ATTACH IF NOT EXISTS %s AS %s (ROW_GROUP_SIZE %d)", sqlString(path), attachedAs, cfg.RowGroupSize)
	c, err := duckdb.NewConnector(dsn, func(ex driver.ExecerContext) error {
		for _, q := range []string{attach, "USE " + attachedAs} {
			if _, err := ex.ExecContext(context.Background(), q, nil); err != nil {
				return fmt.Errorf("duckdb %s: %w", path, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// set sets DuckDB's setting name (memory_limit, threads) for the whole
// instance to value, the value of config key key.
func (s *Store) set(ctx context.Context, name, key, value string) error {
	if _, err := s.db.ExecContext(ctx, "SET "+name+" = "+sqlString(value)); err != nil {
		return fmt.Errorf("config key %s: DuckDB cannot use %q: %w", key, value, err)
	}
	return nil
}

// loadSettings puts DuckDB in its settings for loading a snapshot
// (duckdb.load_memory_limit, duckdb.load_threads); querySettings puts back
// those for queries (duckdb.memory_limit, duckdb.threads).
func (s *Store) loadSettings(ctx context.Context) error {
	return errors.Join(s.set(ctx, "memory_limit", "duckdb.load_memory_limit", s.duck.LoadMemoryLimit),
		s.set(ctx, "threads", "duckdb.load_threads", strconv.Itoa(s.duck.LoadThreads)))
}

func (s *Store) querySettings(ctx context.Context) error {
	return errors.Join(s.set(ctx, "memory_limit", "duckdb.memory_limit", s.duck.MemoryLimit),
		s.set(ctx, "threads", "duckdb.threads", strconv.Itoa(s.duck.Threads)))
}

// DB is the DuckDB database, for readers of the store.
func (s *Store) DB() *sql.DB { return s.db }

// Dir is the output directory; ParquetDir and DuckDBPath are in it.
func (s *Store) Dir() string        { return s.dir }
func (s *Store) ParquetDir() string { return s.parquetDir }

// Close closes the database and releases the lock.
func (s *Store) Close() error {
	var err error
	crashpoint.Hit("close")
	if s.db != nil {
		err = s.db.Close()
	}
	if s.lock != nil {
		s.lock.Close()
	}
	return err
}

const metaSQL = `
CREATE TABLE IF NOT EXISTS billsnap_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS snapshots (
  id VARCHAR PRIMARY KEY,
  started TIMESTAMPTZ NOT NULL,
  finished TIMESTAMPTZ,
  status VARCHAR NOT NULL,
  base_url VARCHAR,
  front_url VARCHAR,
  error VARCHAR
);
CREATE TABLE IF NOT EXISTS snapshot_tables (
  snapshot_id VARCHAR NOT NULL,
  table_name VARCHAR NOT NULL,
  collection VARCHAR NOT NULL,
  walks INTEGER,
  pages INTEGER,
  records_received BIGINT,
  distinct_ids BIGINT,
  total_count BIGINT,
  parquet_rows BIGINT,
  duckdb_rows BIGINT,
  ids_sha256 VARCHAR,
  seconds DOUBLE,
  complete BOOLEAN NOT NULL,
  problem VARCHAR
);
CREATE TABLE IF NOT EXISTS snapshot_fields (
  snapshot_id VARCHAR NOT NULL,
  table_name VARCHAR NOT NULL,
  column_name VARCHAR,
  field VARCHAR NOT NULL,
  kind VARCHAR,
  contract BOOLEAN NOT NULL,
  nulls BIGINT NOT NULL,
  strings BIGINT NOT NULL,
  numbers BIGINT NOT NULL,
  booleans BIGINT NOT NULL,
  objects BIGINT NOT NULL,
  arrays BIGINT NOT NULL,
  coerced BIGINT NOT NULL,
  untyped BIGINT NOT NULL,
  example_id VARCHAR
);
CREATE OR REPLACE VIEW latest_snapshot AS
  SELECT * FROM snapshots WHERE status = 'complete' ORDER BY started DESC, id DESC LIMIT 1;
`

// checkAdded refuses a configured column that an earlier configuration
// added to the database with another type.
func (s *Store) checkAdded(ctx context.Context) error {
	for _, t := range s.tables {
		for _, c := range t.added() {
			var same bool
			var had string
			err := s.db.QueryRowContext(ctx, "SELECT data_type = typeof(NULL::"+duckTypes[c.Kind]+`), data_type
				FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ? AND column_name = ?`, t.Name, c.Name).Scan(&same, &had)
			if err != nil {
				return err
			}
			if !same {
				return &config.Error{Key: "fields." + t.Name + "." + c.Name,
					Msg: fmt.Sprintf("the database has this column as %s from an earlier configuration; keep its type or choose another name", had)}
			}
		}
	}
	return nil
}

// schemaVersion is stored in billsnap_meta; a database from a newer
// billsnap is refused.
const schemaVersion = "1"

func (s *Store) migrate(ctx context.Context) error {
	stmts := []string{metaSQL}
	for _, t := range s.tables {
		stmts = append(stmts, t.createSQL())
		stmts = append(stmts, t.addedSQL()...)
		stmts = append(stmts, fmt.Sprintf(
			"CREATE OR REPLACE VIEW latest_%[1]s AS SELECT * FROM %[1]s WHERE snapshot_id = (SELECT id FROM latest_snapshot)", t.Name))
	}
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("duckdb schema: %w", err)
		}
	}
	if err := s.checkAdded(ctx); err != nil {
		return err
	}
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM billsnap_meta WHERE key = 'schema_version'").Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = s.db.ExecContext(ctx, "INSERT INTO billsnap_meta VALUES ('schema_version', ?)", schemaVersion)
	case err == nil && v != schemaVersion:
		err = fmt.Errorf("the database has schema version %s; this billsnap knows %s", v, schemaVersion)
	}
	return err
}
