package snapshot

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// Every Parquet file of a snapshot carries field IDs, read by DuckDB
// (which shares no code with the writer): 1…N in Parquet order for the
// columns a table starts with, equal to the catalogue's. A column the
// fields key adds gets the next ID; the same name with another kind gets
// a new one; an ID is never given to another column; earlier snapshots'
// files keep theirs.
func TestEveryParquetFileCarriesItsTablesFieldIDs(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 31, Customers: 12}, "")
	cfg := testConfig(srv, t.TempDir())
	steps := []struct {
		fields catalog.Mapping
		want   []string // customers' columns after id…created: name=ID
	}{
		{nil, []string{"_raw=7"}},
		{catalog.Mapping{"customers": {"culture": {Field: "Culture", Type: "string"}}}, []string{"culture=8", "_raw=7"}},
		{catalog.Mapping{"customers": {"culture": {Field: "Culture", Type: "bigint"}}}, []string{"culture=9", "_raw=7"}},
		{catalog.Mapping{"customers": {"region": {Field: "Region", Type: "string"}}}, []string{"region=10", "_raw=7"}},
		{catalog.Mapping{"customers": {"culture": {Field: "Culture", Type: "string"}}}, []string{"culture=8", "_raw=7"}},
	}
	db := duckDB(t)
	var ids []string
	for i, step := range steps {
		cfg.Fields = step.fields
		sum, err := take(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sum.ID)
		got := fileFieldIDs(t, db, cfg, sum.ID, "customers")
		want := append([]string{"id=1", "full_name=2", "company_name=3", "currency_code=4", "email=5", "created=6"}, step.want...)
		if !slices.Equal(got, want) {
			t.Errorf("step %d: customers' files carry %v, want %v", i, got, want)
		}
		checkOtherTables(t, db, cfg, sum.ID)
	}
	if got := fileFieldIDs(t, db, cfg, ids[1], "customers"); got[6] != "culture=8" {
		t.Errorf("the second snapshot's files now carry %v", got)
	}
	var catalogue string
	q := "SELECT string_agg(column_name || '=' || field_id || ':' || kind, ' ' ORDER BY field_id) FROM field_ids WHERE table_name = 'customers' AND field_id > 6"
	if err := readDB(t, cfg).QueryRow(q).Scan(&catalogue); err != nil || catalogue != "_raw=7:json culture=8:string culture=9:bigint region=10:string" {
		t.Errorf("the read model's field_ids of customers after created: %q (%v)", catalogue, err)
	}
}

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
