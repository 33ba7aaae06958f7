//go:build linux && cgo

package snapshot

import (
	"database/sql"
	"testing"

	"github.com/billsnap/billsnap/internal/heaptrim"
)

// In a program that opens a store, the trims DuckDB asks for as databases
// close are skipped (internal/heaptrim), and Release still reaches the C
// library's malloc_trim. The test lives here, not in heaptrim, so that the
// fast tier links DuckDB into one test binary fewer. DuckDB asks at most once per
// 100 ms of its own clock, so the test closes databases until it has asked
// (each takes milliseconds; 200 take far longer than 100 ms).
func TestDuckDBsTrimIsSkippedAndReleaseTrims(t *testing.T) {
	before := heaptrim.Skipped()
	for i := 0; i < 200 && heaptrim.Skipped() == before; i++ {
		openAndClose(t)
	}
	if heaptrim.Skipped() == before {
		t.Fatal("200 DuckDB databases closed and no trim reached internal/heaptrim: its malloc_trim is not the program's")
	}
	n := heaptrim.Skipped()
	heaptrim.Release()
	if heaptrim.Skipped() != n {
		t.Error("Release called the skipping malloc_trim, not the C library's")
	}
}

func openAndClose(t *testing.T) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t AS SELECT range AS id, 'row ' || range AS name FROM range(10000)"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// DuckDB's threads share at most heaptrim.Arenas malloc arenas: the
// cap is set before any database opens.
func TestDuckDBsThreadsShareTheCappedArenas(t *testing.T) {
	db, err := sql.Open("duckdb", "?threads=4")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 3 {
		if _, err := db.Exec("SELECT count(DISTINCT name) FROM (SELECT 'row ' || range AS name FROM range(2000000))"); err != nil {
			t.Fatal(err)
		}
	}
	if n := heaptrim.Heaps(); n < 1 || n > heaptrim.Arenas {
		t.Fatalf("%d malloc arenas after queries on 4 threads; want 1 to %d", n, heaptrim.Arenas)
	}
}
