package history

import (
	"database/sql"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/catalog"
)

// History's table macros are bound when called, not when made: made over
// history views whose files are gone, they are made (a fresh store's first
// publish binds none of them); called, they fail naming what is missing,
// as a view would. Made over what is there, they read it.
func TestHistoryMacrosAreBoundWhenCalled(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tables := catalog.Tables()[:2]
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%.300s", err, q)
		}
	}
	// one version, current since s1
	version := `SELECT 'a' AS id, '{"x":1}'::JSON AS _raw, TIMESTAMPTZ '2026-01-01 00:00:00+00' AS valid_from,
		NULL::TIMESTAMPTZ AS valid_to, 's1' AS snapshot_from, NULL::VARCHAR AS snapshot_to`
	exec(`CREATE TABLE history_steps AS SELECT 's1' AS snapshot, TIMESTAMPTZ '2026-01-01 00:00:00+00' AS "at"`)
	for _, tb := range tables {
		exec(`CREATE TABLE gone_` + tb.Name + ` AS ` + version)
		exec(`CREATE VIEW ` + tb.Name + `_history AS SELECT * FROM gone_` + tb.Name)
		exec(`DROP TABLE gone_` + tb.Name)
	}
	var macros []string
	for _, q := range Views("/nowhere", tables, func(catalog.Table) string { return "" }) {
		switch {
		case strings.Contains(q, "AS TABLE"):
			exec(q) // made, though what it reads is gone
			macros = append(macros, q)
		case strings.Contains(q, "MACRO"), strings.Contains(q, "VIEW history_snapshots"):
			exec(q)
		}
	}
	if len(macros) != len(tables)+1 {
		t.Fatalf("%d table macros, want an as-of macro per table and changes_between", len(macros))
	}
	calls := []string{"SELECT count(*) FROM changes_between('2026-01-01', '2026-02-01')"}
	for _, tb := range tables {
		calls = append(calls, "SELECT count(*) FROM "+tb.Name+"_asof('2026-01-02')")
	}
	for _, q := range calls {
		if _, err := db.Exec(q); err == nil || !strings.Contains(err.Error(), "gone_") {
			t.Errorf("%s over a history whose table is gone: %v, want an error naming it", q, err)
		}
	}
	for _, tb := range tables {
		exec(`CREATE TABLE gone_` + tb.Name + ` AS ` + version)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM " + tables[0].Name + "_asof('2026-01-02')").Scan(&n); err != nil || n != 1 {
		t.Errorf("as of a day the version stood: %d rows, %v; want 1", n, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM changes_between('2025-12-31', '2026-01-02')").Scan(&n); err != nil || n != len(tables) {
		t.Errorf("changes between before and after the first version: %d rows, %v; want %d inserts", n, err, len(tables))
	}
}
