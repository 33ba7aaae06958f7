package runrec_test

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/snapshot/migrate"
)

// stateDB is an in-memory DuckDB with the state's tables (migrate.State),
// closed when the test ends.
func stateDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := migrate.State(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}
