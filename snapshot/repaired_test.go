package snapshot

import (
	"database/sql"
	"fmt"
	"os"
	"testing"

	"github.com/billsnap/billsnap/snapshot/state"
)

// withoutRepaired rewrites a snapshot_fields file as a billsnap that did
// not count repairs wrote it.
func withoutRepaired(t *testing.T, file string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tmp := file + ".old"
	q := fmt.Sprintf("COPY (SELECT * EXCLUDE (repaired) FROM read_parquet(%s)) TO %s (FORMAT parquet)", state.SQLString(file), state.SQLString(tmp))
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
}
