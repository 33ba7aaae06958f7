//go:build heavy

package snapshot

import (
	"fmt"
	"testing"
	"time"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A store of an earlier billsnap — one DuckDB file with every snapshot's
// rows, the manifest, the runs, a Parquet tree with the old partition key —
// is migrated when opened: its latest complete snapshot becomes the read
// model, its incomplete snapshot the incomplete tree, its runs the
// journal, its manifest the state; the next export completes.
func TestAnOldStoreIsMigratedWhenOpened(t *testing.T) {
	t.Parallel()
	clean := sandboxtest.Start(t, sandbox.Options{Seed: 46, Customers: 40}, "")
	cfg := testConfig(clean, t.TempDir())
	first, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	drifting := sandboxtest.Start(t, sandbox.Options{Seed: 46, Customers: 40}, "totalcount=Contacts")
	cfgInc := cfg
	cfgInc.BaseURL, cfgInc.FrontURL = drifting.BaseURL(), drifting.FrontURL()
	inc, err := take(t, cfgInc)
	if err != nil || inc.Status != StatusIncomplete {
		t.Fatalf("%+v %v", inc, err)
	}
	makeOld(t, cfg)

	s := openStore(t, cfg)
	s.Close()
	db := readDB(t, cfg)
	key := clean.AnswerKey()
	for table, want := range key.Tables {
		var n int
		var h string
		q := fmt.Sprintf("SELECT count(*), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256('')) FROM latest_%s", table)
		if err := db.QueryRow(q).Scan(&n, &h); err != nil || n != want.Count || h != want.IDsSHA256 {
			t.Errorf("latest_%s after the migration: %d rows, %v", table, n, err)
		}
	}
	if n := count(t, db, "SELECT count(*) FROM incomplete_customers WHERE snapshot_id = ?", inc.ID); n != key.Tables["customers"].Count {
		t.Errorf("the incomplete snapshot's customers: %d", n)
	}
	if got := statuses(t, db); len(got) != 2 || got[0] != StatusComplete || got[1] != StatusIncomplete {
		t.Errorf("snapshots after the migration: %v", got)
	}
	if n := count(t, db, "SELECT count(*) FROM customers WHERE snapshot_id = ?", first.ID); n != key.Tables["customers"].Count {
		t.Errorf("the history of customers: %d rows of the first snapshot", n)
	}
	runs, _ := journal.List(layout.Dir(cfg.Out).Runs(), time.Now())
	if len(runs) != 1 || runs[0].Job != "export" || runs[0].Status != journal.OK || runs[0].Snapshot != first.ID {
		t.Errorf("the old runs in the journal: %+v", runs)
	}
	if _, err := take(t, cfg); err != nil {
		t.Errorf("the export after the migration: %v", err)
	}
}
