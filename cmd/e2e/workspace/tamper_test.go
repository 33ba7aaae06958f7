package workspace

import (
	"database/sql"
	"os"
	"testing"

	"github.com/billsnap/billsnap/snapshot/state"
)

// tenfold rewrites the invoices' Parquet file at path as a valid Parquet
// file whose totals are ten times theirs, and renames it into place.
func tenfold(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tmp := path + ".forged"
	q := "COPY (SELECT * REPLACE (total_amount * 10 AS total_amount) FROM read_parquet(" + state.SQLString(path) + ")) TO " +
		state.SQLString(tmp) + " (FORMAT parquet)"
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
