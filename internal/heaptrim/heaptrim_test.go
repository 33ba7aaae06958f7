//go:build linux && cgo

package heaptrim

import (
	"database/sql"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// The trims DuckDB asks for as databases close are skipped, and Release
// still reaches the C library's malloc_trim. DuckDB asks at most once per
// 100 ms of its own clock, so the test closes databases until it has asked
// (each takes milliseconds; 200 take far longer than 100 ms).
func TestDuckDBsTrimIsSkippedAndReleaseTrims(t *testing.T) {
	before := Skipped()
	for i := 0; i < 200 && Skipped() == before; i++ {
		openAndClose(t)
	}
	if Skipped() == before {
		t.Fatal("200 DuckDB databases closed and no trim reached this package: its malloc_trim is not the program's")
	}
	n := Skipped()
	Release()
	if Skipped() != n {
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
