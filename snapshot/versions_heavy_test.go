//go:build heavy

package snapshot

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox"
)

// Known inserts, updates and deletes between two complete snapshots come
// out exactly in the change feed and the history; a list cut short moves
// nothing; a record changed back gets a new version; as of any time, the
// history gives back the complete snapshot that stood then.
func TestHistoryMovesOnlyWithCompleteSnapshots(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	first := takeAt(t, f.cfg, f.clock)

	a, b, c, e := customerAt(t, f.sb, 0), customerAt(t, f.sb, 1), customerAt(t, f.sb, 2), customerAt(t, f.sb, 4)
	emailA, emailE := a.Email, e.Email
	setEmail(t, f.sb, a.ID, "new-"+emailA)
	if err := f.sb.Change("Customers", b.ID, func(r any) {
		cu := r.(*sandbox.Customer)
		cu.FullName, cu.CompanyName = cu.FullName+" Jr", cu.CompanyName+" Ltd"
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.sb.Remove("Customers", c.ID); err != nil {
		t.Fatal(err)
	}
	d := &sandbox.Customer{ID: "00000000-0000-4000-8000-0000000000dd", FullName: "Dee", CurrencyCode: "USD", Created: f.clock.at}
	if err := f.sb.Add("Customers", d); err != nil {
		t.Fatal(err)
	}
	setEmail(t, f.sb, e.ID, "changed-"+emailE)
	second := takeAt(t, f.cfg, f.clock)
	want := []change{{"customers", a.ID, "update", "Email"}, {"customers", b.ID, "update", "CompanyName,FullName"},
		{"customers", c.ID, "delete", ""}, {"customers", d.ID, "insert", ""}, {"customers", e.ID, "update", "Email"}}
	slices.SortFunc(want, func(x, y change) int { return strings.Compare(x.table+x.id+x.op, y.table+y.id+y.op) })
	db := readDB(t, f.cfg)
	if got := feed(t, db, second.ID); !slices.Equal(got, want) {
		t.Errorf("the change feed into %s:\n got %v\nwant %v", second.ID, got, want)
	}
	checkAsOf(t, db, first.ID, f.clock.at.AddDate(0, 0, -2))

	cut := takeAt(t, f.from(f.cut), f.clock)
	if cut.Status != StatusIncomplete {
		t.Fatalf("the export of the list cut short is %s, want incomplete", cut.Status)
	}
	db = readDB(t, f.cfg)
	if got := feed(t, db, cut.ID); len(got) != 0 {
		t.Errorf("an incomplete snapshot moved history: %v", got)
	}
	checkVersions(t, db, a.ID, 2)
	checkVersions(t, db, c.ID, 1)

	setEmail(t, f.sb, e.ID, emailE) // back to the first value
	third := takeAt(t, f.cfg, f.clock)
	db = readDB(t, f.cfg)
	if got := feed(t, db, third.ID); !slices.Equal(got, []change{{"customers", e.ID, "update", "Email"}}) {
		t.Errorf("the change feed into %s: %v", third.ID, got)
	}
	froms := checkVersions(t, db, e.ID, 3)
	if !slices.Equal(froms, []string{first.ID, second.ID, third.ID}) {
		t.Errorf("customer %s's versions start at %v, want %v (a change back is a new version)", e.ID, froms, []string{first.ID, second.ID, third.ID})
	}
	checkAsOf(t, db, first.ID, time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC))
	checkAsOf(t, db, second.ID, time.Date(2027, 3, 3, 12, 0, 0, 0, time.UTC)) // the cut snapshot's day
	checkAsOf(t, db, third.ID, f.clock.at)
}

// A store whose snapshots were taken before history (none stepped) gets
// its history built once, at its next complete snapshot, from the
// snapshots it keeps, oldest first: as of each one's time the tables are
// its rows.
func TestHistoryIsBuiltForAStoreWrittenBefore(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	first := takeAt(t, f.cfg, f.clock)
	setEmail(t, f.sb, customerAt(t, f.sb, 0).ID, "before@example.com")
	second := takeAt(t, f.cfg, f.clock)
	s, err := Open(context.Background(), f.cfg.Options, slog.New(slog.DiscardHandler), f.clock.now)
	if err != nil {
		t.Fatal(err)
	}
	inState(t, s, func(db *sql.DB) { db.Exec("DELETE FROM history_steps") }) // as before history
	s.Close()
	os.RemoveAll(filepath.Join(f.cfg.Out, ".billsnap", "history", "versions"))
	setEmail(t, f.sb, customerAt(t, f.sb, 1).ID, "after@example.com")
	third := takeAt(t, f.cfg, f.clock)
	db := readDB(t, f.cfg)
	var snaps string
	db.QueryRow(`SELECT string_agg(snapshot_id, ',' ORDER BY "at") FROM history_snapshots`).Scan(&snaps)
	if want := first.ID + "," + second.ID + "," + third.ID; snaps != want {
		t.Errorf("history holds %s, want %s", snaps, want)
	}
	for i, id := range []string{first.ID, second.ID, third.ID} {
		checkAsOf(t, db, id, time.Date(2027, 3, 1+i, 12, 0, 0, 0, time.UTC))
	}
	if got := feed(t, db, second.ID); len(got) != 1 || got[0].fields != "Email" {
		t.Errorf("the change feed into the second snapshot, built after it: %v", got)
	}
}

// Retention keeps history: with keep 1, every version of the snapshots
// pruned stays, and as of the first snapshot's time the tables are its
// rows still; a protected snapshot (a close's) is never pruned; history's
// own retention starts it at the oldest step kept, exact from there on,
// though the steps it forgets and those it keeps share a pack.
func TestRetentionKeepsHistory(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	first := takeAt(t, f.cfg, f.clock)
	firstAt := f.clock.at.AddDate(0, 0, -1)
	db := readDB(t, f.cfg)
	var before string
	db.QueryRow(`SELECT string_agg(id || _raw::VARCHAR, ',' ORDER BY id) FROM customers WHERE snapshot_id = ?`, first.ID).Scan(&before)
	var snaps []string
	for i := 0; i < 3; i++ {
		setEmail(t, f.sb, customerAt(t, f.sb, i).ID, "day"+string(rune('a'+i))+"@example.com")
		snaps = append(snaps, takeAt(t, f.cfg, f.clock).ID)
	}
	s, err := Open(context.Background(), f.cfg.Options, slog.New(slog.DiscardHandler), f.clock.now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pruned, err := s.Prune(context.Background(), 1, snaps[0])
	if err != nil || !slices.Equal(pruned, []string{first.ID, snaps[1]}) {
		t.Errorf("pruned %v, %v; want the first and the third snapshots (the second is protected)", pruned, err)
	}
	db = readDB(t, f.cfg)
	var asOf string
	db.QueryRow(`SELECT string_agg(id || _raw::VARCHAR, ',' ORDER BY id) FROM customers_asof(?::TIMESTAMPTZ)`, firstAt).Scan(&asOf)
	if asOf == "" || asOf != before {
		t.Errorf("as of the first snapshot after it was pruned: %.80q…, want its rows %.80q…", asOf, before)
	}
	checkVersions(t, db, customerAt(t, f.sb, 0).ID, 2)
	var packed int
	db.QueryRow(`SELECT count(*) FROM history_steps WHERE table_name = 'customers' AND pack IS NOT NULL`).Scan(&packed)
	if packed != 4 {
		t.Errorf("%d of the customers' four steps are in a pack, want all: history's retention is to prune a pack", packed)
	}

	forgot, err := s.PruneHistory(context.Background(), firstAt.AddDate(0, 0, 2).Add(time.Hour))
	if err != nil || !slices.Equal(forgot, []string{first.ID, snaps[0]}) {
		t.Errorf("history pruned %v, %v; want the two oldest steps", forgot, err)
	}
	db = readDB(t, f.cfg)
	var oldest string
	db.QueryRow(`SELECT min(snapshot_id) FROM history_snapshots`).Scan(&oldest)
	if oldest != snaps[1] {
		t.Errorf("history starts at %s, want %s", oldest, snaps[1])
	}
	checkVersions(t, db, customerAt(t, f.sb, 2).ID, 2) // changed at the last step: both versions kept
	checkAsOf(t, db, snaps[2], f.clock.at)
}
