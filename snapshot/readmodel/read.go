package readmodel

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/snapshot/state"
)

// ErrNoStore is a directory where no billsnap has published anything.
var ErrNoStore = errors.New("no billsnap store here yet: run billsnap export first")

// Open opens the database readers see at path (DIR/billsnap.duckdb),
// read-only: what the last publish left. It is ErrNoStore (wrapped,
// naming the path) when there is none.
//
// The file is attached to a database of its own, not opened by its path:
// the driver keeps one instance per path for the whole process, so a
// process that holds the read model open (billsnap serve, the scheduler)
// would be given that instance again, the file a publish has since
// renamed away, instead of the one now at the path.
func Open(ctx context.Context, path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, ErrNoStore)
	}
	attach := fmt.Sprintf("ATTACH IF NOT EXISTS %s AS %s (READ_ONLY)", state.SQLString(path), state.AttachedAs)
	c, err := duckdb.NewConnector("", func(ex driver.ExecerContext) error {
		for _, q := range []string{attach, "USE " + state.AttachedAs} {
			if _, err := ex.ExecContext(context.Background(), q, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("opening %s to read: %w", path, err)
	}
	db := sql.OpenDB(c)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s to read: %w", path, err)
	}
	return db, nil
}

// ErrNotOneStatement is SQL that holds more than one statement.
var ErrNotOneStatement = errors.New("want one SQL statement, not several")

// StatementError is a statement that cannot be prepared: empty, several
// (ErrNotOneStatement), not SQL, or naming a table or column that is not
// there. It is the caller's mistake, found before anything ran.
type StatementError struct{ Err error }

func (e *StatementError) Error() string { return e.Err.Error() }
func (e *StatementError) Unwrap() error { return e.Err }

// Query runs statement on db, a database from Open, and returns its
// rows. statement must be one SQL statement that prepares: anything else
// is a *StatementError before anything runs (of several statements, only
// the last one's rows could be shown).
func Query(ctx context.Context, db *sql.DB, statement string) (*sql.Rows, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	err = conn.Raw(func(dc any) error {
		// The driver's Prepare without a context prepares one statement
		// and refuses several; it runs none.
		st, err := dc.(driver.Conn).Prepare(statement)
		if err != nil {
			if strings.Contains(err.Error(), "multi-statement") {
				err = ErrNotOneStatement
			}
			return &StatementError{err}
		}
		return st.Close()
	})
	if cerr := conn.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return db.QueryContext(ctx, statement)
}

// TornRead tells whether err is what DuckDB reports when a query read a
// Parquet file of the records while a publish switched them, or a file
// retention deleted after the query listed it: DuckDB opens a file by its
// path several times in one query (to bind, to bind again when the
// statement runs, to scan), so a query that spans the switch of a link can
// meet the old file's metadata and the new file's bytes. Such a query is
// only to be run again.
func TornRead(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, s := range []string{"TProtocolException", "don't know what type", "No magic bytes found", "No files found that match the pattern", "Could not open file"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// DuckDBVersion is the version of the DuckDB library billsnap is built
// with, and its source commit: "v1.5.6 (069cc9f9b5)".
func DuckDBVersion(ctx context.Context) (string, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return "", err
	}
	defer db.Close()
	var version, source string
	if err := db.QueryRowContext(ctx, "SELECT library_version, source_id FROM pragma_version()").Scan(&version, &source); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (%s)", version, source), nil
}
