package readmodel_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Query refuses several statements before any runs, and names a statement
// that does not prepare as the caller's.
func TestQueryRunsOneStatement(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var se *readmodel.StatementError
	if _, err := readmodel.Query(ctx, db, "CREATE TABLE t (x INT); SELECT 1"); !errors.Is(err, readmodel.ErrNotOneStatement) || !errors.As(err, &se) {
		t.Errorf("two statements: %v", err)
	}
	if _, err := db.ExecContext(ctx, "SELECT * FROM t"); err == nil {
		t.Error("the first of two refused statements ran")
	}
	for _, bad := range []string{"", "selec 1", "SELECT * FROM nope"} {
		if _, err := readmodel.Query(ctx, db, bad); !errors.As(err, &se) {
			t.Errorf("%q: %v, want a StatementError", bad, err)
		}
	}
	rows, err := readmodel.Query(ctx, db, "SELECT 41 + 1;")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int
	if !rows.Next() || rows.Scan(&n) != nil || n != 42 {
		t.Errorf("one statement with a semicolon: %d, %v", n, rows.Err())
	}
}
