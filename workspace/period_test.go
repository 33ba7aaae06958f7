package workspace

import (
	"context"
	"testing"

	"github.com/billsnap/billsnap/snapshot"
)

// TestAWholeSnapshotsPeriodIsNull: the read model names a whole-snapshot
// reconciliation's period NULL, in its findings as in its reconciliations
// and totals, as the runs and findings.json do, so that `period IS NULL`
// finds them all.
func TestAWholeSnapshotsPeriodIsNull(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	db, err := snapshot.OpenRead(context.Background(), fx.cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(fx.reconciled.Findings) == 0 {
		t.Fatal("the fixture's reconciliation has no finding")
	}
	for _, table := range []string{"findings", "reconciliations", "reconciliation_totals"} {
		var all, null int
		err := db.QueryRow("SELECT count(*), count(*) FILTER (WHERE period IS NULL) FROM "+table+" WHERE snapshot_id = ?",
			fx.reconciled.Snapshot.ID).Scan(&all, &null)
		if err != nil {
			t.Fatal(err)
		}
		if all == 0 || null != all {
			t.Errorf("%s: %d rows of the whole-snapshot reconciliation have period NULL, of %d", table, null, all)
		}
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM findings WHERE period IS NULL").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(fx.reconciled.Findings) {
		t.Errorf("SELECT count(*) FROM findings WHERE period IS NULL: %d, want the reconciliation's %d findings", n, len(fx.reconciled.Findings))
	}
}
