//go:build heavy

package snapshot

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// An incomplete snapshot changes neither latest_ nor the tree of complete
// snapshots; it is kept for inspection in its own tree, which the
// incomplete_ views read.
func TestIncompleteSnapshotIsKeptButNotPublished(t *testing.T) {
	t.Parallel()
	clean := sandboxtest.Start(t, sandbox.Options{Seed: 32, Customers: 150}, "")
	cfg := testConfig(clean, t.TempDir())
	first, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := fingerprint(t, cfg)
	drifting := sandboxtest.Start(t, sandbox.Options{Seed: 32, Customers: 150}, "totalcount=Contacts")
	cfg2 := cfg
	cfg2.BaseURL, cfg2.FrontURL = drifting.BaseURL(), drifting.FrontURL()
	sum, err := take(t, cfg2)
	if err != nil || sum.Status != StatusIncomplete {
		t.Fatalf("%+v, %v", sum, err)
	}
	if after := fingerprint(t, cfg); !mapsEqual(before, after) {
		t.Error("an incomplete snapshot changed what readers see")
	}
	db := readDB(t, cfg)
	var complete bool
	var problem string
	db.QueryRow("SELECT complete, problem FROM snapshot_tables WHERE snapshot_id = ? AND table_name = 'contacts'", sum.ID).Scan(&complete, &problem)
	if complete || !strings.Contains(problem, "TotalCount says") {
		t.Errorf("contacts of the incomplete snapshot: complete %v, problem %q", complete, problem)
	}
	if n := count(t, db, "SELECT count(*) FROM incomplete_customers WHERE snapshot_id = ?", sum.ID); n != clean.AnswerKey().Tables["customers"].Count {
		t.Errorf("the incomplete snapshot has %d customers in incomplete_customers", n)
	}
	if n := count(t, db, "SELECT count(*) FROM customers WHERE snapshot_id = ?", sum.ID); n != 0 {
		t.Errorf("the incomplete snapshot has %d customers among the complete ones", n)
	}
	if n := count(t, db, "SELECT count(*) FROM latest_snapshot WHERE id = ?", first.ID); n != 1 {
		t.Error("latest is not the first snapshot")
	}
}

func TestFailedRunLeavesThePreviousSnapshot(t *testing.T) {
	t.Parallel()
	clean := sandboxtest.Start(t, sandbox.Options{Seed: 31, Customers: 300}, "")
	cfg := testConfig(clean, t.TempDir())
	if _, err := take(t, cfg); err != nil {
		t.Fatal(err)
	}
	before := fingerprint(t, cfg)
	broken := sandboxtest.Start(t, sandbox.Options{Seed: 31, Customers: 300}, "loop=Invoices@6")
	cfg2 := cfg
	cfg2.BaseURL, cfg2.FrontURL = broken.BaseURL(), broken.FrontURL()
	_, err := take(t, cfg2)
	if err == nil || !strings.Contains(err.Error(), "collection invoices, page 6, GET "+broken.URL+"/Invoices/?page=6: NextPage "+broken.URL+"/Invoices/?page=5 loops back to page 5") {
		t.Fatalf("second run: %v", err)
	}
	if after := fingerprint(t, cfg); !mapsEqual(before, after) {
		t.Errorf("a failed run changed what readers see:\nbefore %v\nafter  %v", before, after)
	}
	s := openStore(t, cfg)
	defer s.Close()
	var msg string
	inState(t, s, func(db *sql.DB) {
		if got := statuses(t, db); !slices.Equal(got, []string{StatusComplete, StatusFailed}) {
			t.Errorf("statuses %v", got)
		}
		db.QueryRow("SELECT error FROM snapshots WHERE status = 'failed'").Scan(&msg)
	})
	if !strings.Contains(msg, "loops back to page 5") {
		t.Errorf("failed snapshot's error: %q", msg)
	}
	if n := count(t, readDB(t, cfg), "SELECT count(*) FROM invoices"); n != int(clean.AnswerKey().Tables["invoices"].Count) {
		t.Errorf("the failed run left %d invoice rows where readers look", n)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, ".staging")); !os.IsNotExist(err) {
		t.Errorf("staging left behind: %v", err)
	}
}
