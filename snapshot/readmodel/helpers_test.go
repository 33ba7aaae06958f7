package readmodel_test

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// state is an in-memory DuckDB with the store's schema: the state's
// tables (migrate.State) and the run records' as tables
// (runrec.PlainHistory), with the statements exec given run in order.
func state(t *testing.T, exec ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := migrate.State(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := runrec.PlainHistory(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, q := range exec {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}
