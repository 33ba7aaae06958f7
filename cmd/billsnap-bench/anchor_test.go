package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot/state"
)

// The anchor's tables hold every record of the pages it fetched, each
// table its list's, and so does the Parquet it wrote of each: the
// benchmark's cpu_ratio_to_duckdb compares the export with DuckDB over
// the same records.
func TestTheAnchorHoldsEveryRecordOfThePages(t *testing.T) {
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{APIKey: benchKey,
		Data: sandbox.Options{Seed: 1, Customers: 40, Planted: 2}}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	res, err := duckdbAnchor(context.Background(), srv.URL, dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := pageRecords(t, filepath.Join(dir, "pages"))
	if len(res.rows) != len(want) || res.total <= sandbox.PageSize {
		t.Fatalf("the anchor's tables %v, the pages' %v", res.rows, want)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, n := range want {
		var inParquet int64
		file := filepath.Join(dir, "parquet", table+".parquet")
		if err := db.QueryRow("SELECT count(*) FROM read_parquet(" + state.SQLString(file) + ")").Scan(&inParquet); err != nil {
			t.Fatal(err)
		}
		if res.rows[table] != n || inParquet != n {
			t.Errorf("%s: the pages hold %d records, the anchor's table %d, its Parquet %d", table, n, res.rows[table], inParquet)
		}
	}
}

// pageRecords counts the Items of every page kept under pages, by table.
func pageRecords(t *testing.T, pages string) map[string]int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(pages, "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no pages kept under %s (%v)", pages, err)
	}
	n := map[string]int64{}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Items []json.RawMessage }
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		n[filepath.Base(filepath.Dir(f))] += int64(len(p.Items))
	}
	return n
}
