package snapshot

import (
	"database/sql"
	"strings"
	"testing"
)

// checkByName checks whether the read model's views of tables read their
// files by name.
func checkByName(t *testing.T, db *sql.DB, want map[string]bool) {
	t.Helper()
	for table, byName := range want {
		var view string
		if err := db.QueryRow("SELECT sql FROM duckdb_views() WHERE view_name = ?", table).Scan(&view); err != nil {
			t.Fatal(err)
		}
		got, set := strings.Contains(view, "union_by_name = CAST('t'"), strings.Contains(view, "union_by_name = CAST(")
		if !set || got != byName {
			t.Errorf("the view %s reads by name: %v, want %v\n%s", table, got, byName, view)
		}
	}
}
