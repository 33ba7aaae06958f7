package ingest

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"
	"weak"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/catalog"
)

// Rows encoded into a row group that is not full yet keep no response body
// alive: parquet-go holds the encoded pages until the row group fills, and
// without release its row buffer and the pages' min and max would still
// point into the bodies the rows were views of. The file still carries the
// right statistics.
func TestFlushedRowsKeepNoBodyAlive(t *testing.T) {
	t.Parallel()
	tbl, _ := catalog.TableNamed("units_of_measure")
	dir := t.TempDir()
	p := newPartWriter(tbl, dir, testSettings)
	if err := p.reset(); err != nil {
		t.Fatal(err)
	}
	const width = 64
	body := new([flushRows * width]byte)
	alive := weak.Make(body)
	var minRaw, maxRaw string
	for i := range flushRows {
		rec := body[i*width : (i+1)*width]
		raw := fmt.Sprintf("%036d%-28s", (i*7919)%flushRows, fmt.Sprintf("unit %d", i))
		if i == 0 || raw < minRaw {
			minRaw = raw
		}
		maxRaw = max(maxRaw, raw)
		copy(rec, raw)
		s := unsafe.String(&rec[0], width)
		if err := p.write([]any{s[:36], s[36:], s}); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.w.Footer.RowGroups) != 0 {
		t.Fatal("the row group was written: the test needs one still being filled")
	}
	body = nil
	if !collected(alive) {
		t.Error("the body the rows came from is still alive after they were encoded")
	}
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := "SELECT path_in_schema, coalesce(stats_min_value, '-'), coalesce(stats_max_value, '-') FROM parquet_metadata(?) ORDER BY 1"
	rows, err := db.Query(q, filepath.Join(dir, "part-00000.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string][2]string{}
	for rows.Next() {
		var col, lo, hi string
		if err := rows.Scan(&col, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		got[col] = [2]string{lo, hi}
	}
	want := map[string][2]string{"id": {fmt.Sprintf("%036d", 0), fmt.Sprintf("%036d", flushRows-1)}, "_raw": {minRaw, maxRaw}}
	for col, w := range want {
		if got[col] != w {
			t.Errorf("%s: statistics %q, want %q", col, got[col], w)
		}
	}
}

// A row group's null_count is the number of NULLs in it, also where a page
// starts with one (parquet-go leaves the first value of each page out of
// its own count): DuckDB trusts the count and would find no row for "IS
// NULL" in a row group it says has none. Rows of two writers make two
// pages per flush, and small row groups make many of them.
func TestNullCountsAreTrue(t *testing.T) {
	t.Parallel()
	tbl, _ := catalog.TableNamed("tax_rules")
	for _, tc := range []struct {
		rows, rowGroup int
	}{{4, 4 << 20}, {flushRows * 3, 64 << 10}} {
		dir := t.TempDir()
		cfg := testSettings
		cfg.RowGroupSize = int64(tc.rowGroup)
		p := newPartWriter(tbl, dir, cfg)
		if err := p.reset(); err != nil {
			t.Fatal(err)
		}
		names := 0
		for i := range tc.rows {
			var name, rate any = fmt.Sprintf("rule %d", i), 0.25
			if i%(tc.rows/2) == 0 || i%7 == 3 {
				name, names = nil, names+1 // the first row of each writer's half, and more
			}
			if i%5 == 0 {
				rate = nil
			}
			if err := p.write([]any{fmt.Sprintf("%08d", i), name, rate, "{}"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.close(); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		files := filepath.Join(dir, "*.parquet")
		var stats, groups, found int
		err = db.QueryRow(fmt.Sprintf(`SELECT sum(stats_null_count), count(*) FROM parquet_metadata('%s') WHERE path_in_schema = 'name'`, files)).Scan(&stats, &groups)
		if err == nil {
			err = db.QueryRow(fmt.Sprintf(`SELECT count(*) FROM read_parquet('%s') WHERE name IS NULL`, files)).Scan(&found)
		}
		if err != nil || stats != names || found != names {
			t.Errorf("%d rows in %d row groups: null_count %d, IS NULL finds %d, err %v; want %d", tc.rows, groups, stats, found, err, names)
		}
	}
}

// testSettings are the configuration's default Parquet settings.
var testSettings = Settings{Compression: "snappy", PageSize: 1 << 20, RowGroupSize: 4 << 20, Writers: 2, RowsPerFile: 1_000_000}

// collected reports whether the garbage collector frees what alive points
// to within a few cycles. One cycle is not always enough: parquet-go encodes
// pages on goroutines of its own, and one that has signalled its WaitGroup
// may not have returned yet, its frame still holding a row. Memory that is
// truly kept alive stays alive through every cycle.
func collected[T any](alive weak.Pointer[T]) bool {
	for range 10 {
		runtime.GC()
		if alive.Value() == nil {
			return true
		}
		runtime.Gosched()
	}
	return false
}
