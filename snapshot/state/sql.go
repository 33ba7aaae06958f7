package state

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/internal/fileutil"
)

// AttachedAs is the name a database file is attached under, and used, by
// every connection of the databases this package opens.
const AttachedAs = "billsnap"

// Querier is a connection, a transaction or a database.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// SQLString quotes s as a DuckDB string literal.
func SQLString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// SQLList is ss as a SQL list of string literals: ['a', 'b'].
func SQLList(ss []string) string {
	quoted := make([]string, len(ss))
	for i, s := range ss {
		quoted[i] = SQLString(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// QuoteIdent quotes a DuckDB identifier.
func QuoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Strings are the strings query returns, one a row.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// OpenFile opens the database file at path with the settings of cfg, in
// an instance of its own, created with blocks of blockSize bytes (0:
// DuckDB's default, 256 KiB) when it does not exist: a file's block size
// is set when it is created. Every connection attaches the file (once per
// DuckDB instance) as AttachedAs and uses it, because only ATTACH takes a
// row group size.
func OpenFile(path string, cfg Settings, blockSize int) (*sql.DB, error) {
	attach := attachSQL(path, cfg, blockSize)
	c, err := duckdb.NewConnector(duckDSN(path+".tmp", cfg), func(ex driver.ExecerContext) error {
		for _, q := range []string{attach, "USE " + AttachedAs} {
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

// OpenMemory opens an in-memory database with the settings of cfg, in
// an instance of its own that spills to tmp: for work that reads and
// writes files (history's steps) beside a file's instance.
func OpenMemory(tmp string, cfg Settings) (*sql.DB, error) {
	c, err := duckdb.NewConnector(duckDSN(tmp, cfg), nil)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// CopyTo writes what query returns to a Parquet file at path: written
// beside it, made durable and renamed into place, so that the file at
// path is whole whenever the process dies.
func CopyTo(ctx context.Context, conn *sql.Conn, query, path string) error {
	tmp := path + ".tmp"
	q := fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", query, SQLString(tmp))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := fileutil.SyncFile(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// OutOfMemory tells whether err is DuckDB's out-of-memory error: a
// statement that did not fit in memory_limit, and changed nothing.
func OutOfMemory(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
}
