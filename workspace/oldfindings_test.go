package workspace

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/reports"
)

// A read model published before findings named their customer (its
// findings without the three columns, and so without the macros that read
// one reconciliation's files, which came later), read by this billsnap
// before its next publish: the list, its search, the overview and the API
// answer, naming no customer.
func TestAReadModelPublishedBeforeCustomersIsRead(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	public := filepath.Join(fx.cfg.Out, fx.cfg.Options.DuckDB.File)
	db, err := sql.Open("duckdb", public)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE findings_kept AS SELECT * EXCLUDE (customer_id, customer_name, invoice_number) FROM findings",
		"DROP VIEW findings",
		"ALTER TABLE findings_kept RENAME TO findings",
		"DROP MACRO TABLE findings_in",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	srv := fx.serve(t, "")
	for _, path := range []string{"/", "/findings", "/findings?q=Customer", "/findings.csv"} {
		if a := do(t, srv, call{path: path}); a.status != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, a.status, a.body)
		}
	}
	var found []reports.FindingJSON
	getJSON(t, srv, "/api/findings", &found)
	if len(found) == 0 || found[0].CustomerID != "" {
		t.Errorf("API: %d findings, the first's customer %q; want some, none named", len(found), found[0].CustomerID)
	}
}
