package modelfile_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// stateDB is an empty state in memory, its schema made, its run records
// plain tables.
func stateDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := errors.Join(migrate.State(ctx, db), runrec.PlainHistory(ctx, db)); err != nil {
		t.Fatal(err)
	}
	return db
}
