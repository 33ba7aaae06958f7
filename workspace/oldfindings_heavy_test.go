//go:build heavy

package workspace

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Findings kept before they named their customer (run record files
// without customer_id, customer_name, invoice_number) read with those
// columns NULL, in the read model and the workspace, and the next
// reconcile reads them as the previous snapshot's and names its own.
func TestFindingsKeptBeforeCustomersRead(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	files, err := filepath.Glob(filepath.Join(layout.Dir(fx.cfg.Out).History(), "findings", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no findings files: %v", err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, f := range files {
		q := "COPY (SELECT * EXCLUDE (customer_id, customer_name, invoice_number) FROM read_parquet(" + state.SQLString(f) + ")) TO " +
			state.SQLString(f+".old") + " (FORMAT parquet)"
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(f+".old", f); err != nil {
			t.Fatal(err)
		}
	}
	read, err := snapshot.OpenRead(context.Background(), fx.cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	var all, named int
	err = read.QueryRow("SELECT count(*), count(customer_name) FROM findings").Scan(&all, &named)
	read.Close()
	if err != nil || all == 0 || named != 0 {
		t.Fatalf("the old findings: %d, %d named (%v); want them all read, none named", all, named, err)
	}
	srv := fx.serve(t, "")
	var found []reports.FindingJSON
	getJSON(t, srv, "/api/findings", &found)
	if len(found) != all || found[0].CustomerName != "" {
		t.Fatalf("API: %d findings, the first's customer %q; want %d, none", len(found), found[0].CustomerName, all)
	}
	fx.export(t) // a new snapshot, whose reconciliation reads the old ones' findings
	rep := fx.reconcile(t)
	unnamed := 0
	for _, f := range rep.Findings {
		if f.CustomerID == "" && f.Rule != "snapshot_incomplete" {
			unnamed++
		}
	}
	if len(rep.Findings) == 0 || unnamed != 0 || rep.Previous == "" {
		t.Errorf("the next snapshot (previous %q): %d of %d findings name no customer", rep.Previous, unnamed, len(rep.Findings))
	}
}
