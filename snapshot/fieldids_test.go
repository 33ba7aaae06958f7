package snapshot

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/catalog"
)

// checkOtherTables checks that every table's files in snapshot id carry
// IDs 1…N in order (the fields key of the test changes only customers).
func checkOtherTables(t *testing.T, db *sql.DB, cfg testCfg, id string) {
	t.Helper()
	for _, tbl := range catalog.Tables() {
		if tbl.Name == "customers" {
			continue
		}
		var want []string
		for i, c := range tbl.ColumnKinds() {
			want = append(want, fmt.Sprintf("%s=%d", c.Name, i+1))
		}
		if got := fileFieldIDs(t, db, cfg, id, tbl.Name); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tbl.Name, got, want)
		}
	}
}

// fileFieldIDs are the columns and field IDs (name=ID) of every Parquet
// file of table in snapshot id, as DuckDB reads their footers; a test
// error when the files differ.
func fileFieldIDs(t *testing.T, db *sql.DB, cfg testCfg, id, table string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(cfg.Out, cfg.Parquet.Dir, table, "snapshot_id="+id, "*.parquet"))
	if len(files) == 0 {
		t.Fatalf("%s: no files of snapshot %s", table, id)
	}
	var first []string
	for _, f := range files {
		rows, err := db.Query("SELECT name || '=' || coalesce(field_id::VARCHAR, 'none') FROM parquet_schema(?) WHERE coalesce(num_children, 0) = 0", f)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var c string
			rows.Scan(&c)
			cols = append(cols, c)
		}
		rows.Close()
		if first == nil {
			first = cols
		} else if !slices.Equal(cols, first) {
			t.Errorf("%s: %s carries %v, another file %v", table, f, cols, first)
		}
	}
	return first
}

// duckDB is an in-memory DuckDB until the test ends.
func duckDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
