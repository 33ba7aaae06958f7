//go:build heavy

package snapshot

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/snapshot/history"
)

// Packing the files of older steps changes nothing readers see: of nine
// daily snapshots (a customer's email changed, one removed and one added
// every day), read before and after each pack, the versions each earlier
// snapshot closed, the change feed into it, what changed from the day
// before (what billsnap changes prints) and the tables as of its time
// read as they did before, though by then its files are in packs; and
// the files the packs replaced are gone.
func TestPackingKeepsHistoryAsItWas(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	var snaps []*Summary
	seen := map[string]string{}    // a reading of an earlier snapshot -> what it gave then
	readOn := []int{3, 4, 7, 8, 9} // before and after each pack (the 4th and the 8th snapshots pack)
	for day := range 9 {
		if day > 0 {
			churnCustomers(t, f.sb, day)
		}
		snaps = append(snaps, takeAt(t, f.cfg, f.clock))
		if !slices.Contains(readOn, len(snaps)) {
			continue
		}
		db := readDB(t, f.cfg)
		for name, got := range historyReadings(t, db, snaps) {
			if want, ok := seen[name]; ok && got != want {
				t.Errorf("after snapshot %d, %s reads\n%.300s…\nwhere it read\n%.300s…", day+1, name, got, want)
			}
			seen[name] = got
		}
	}
	s := openStore(t, f.cfg)
	defer s.Close()
	var packed []string
	inState(t, s, func(db *sql.DB) {
		rows, _ := db.Query("SELECT snapshot FROM history_steps WHERE table_name = 'customers' AND pack IS NOT NULL ORDER BY ALL")
		defer rows.Close()
		for rows.Next() {
			var id string
			rows.Scan(&id)
			packed = append(packed, id)
		}
	})
	if len(packed) != 8 {
		t.Errorf("%d of the customers' steps are packed (%v), want the first eight", len(packed), packed)
	}
	for _, id := range packed {
		for _, kind := range []string{history.Versions, history.Changes} {
			if _, err := os.Stat(history.File(s.at.History(), kind, "customers", id)); err == nil {
				t.Errorf("the %s of step %s are in a pack and in a file of their own", kind, id)
			}
		}
	}
}

// History's retention by age removes a pack once every step it holds is
// forgotten, and history then starts at the oldest step kept, exact from
// there on.
func TestHistoryRetentionRemovesAPackItForgotWhole(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	var snaps []*Summary
	for day := range 6 {
		if day > 0 {
			churnCustomers(t, f.sb, day)
		}
		snaps = append(snaps, takeAt(t, f.cfg, f.clock))
	}
	s := openStore(t, f.cfg)
	defer s.Close()
	pack := history.File(s.at.History(), history.Versions, "customers", "pack-"+snaps[0].ID+"--"+snaps[3].ID)
	if _, err := os.Stat(pack); err != nil {
		t.Fatalf("the first four steps are not packed: %v", err)
	}
	forgot, err := s.PruneHistory(context.Background(), history.TimeOf(snaps[4].Started))
	if err != nil || len(forgot) != 4 {
		t.Fatalf("history pruned %v, %v; want the four oldest steps", forgot, err)
	}
	if _, err := os.Stat(pack); !os.IsNotExist(err) {
		t.Errorf("the pack of the four steps forgotten is still there: %v", err)
	}
	db := readDB(t, f.cfg)
	var oldest string
	var closed int
	db.QueryRow(`SELECT min(snapshot_id) FROM history_snapshots`).Scan(&oldest)
	db.QueryRow(`SELECT count(*) FROM customers_history WHERE snapshot_to <= ?`, snaps[3].ID).Scan(&closed)
	if oldest != snaps[4].ID || closed != 0 {
		t.Errorf("history starts at %s with %d versions closed by the steps forgotten; want %s and none", oldest, closed, snaps[4].ID)
	}
	checkAsOf(t, db, snaps[5].ID, f.clock.at)
}
