package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot/history"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// Legacy findings (a table of a state of schema 5) become a run file when
// the state is next opened; a reconciliation kept again for the same
// snapshot and period replaces that file with its own, even when the file
// replaced is the newest the index lists (its number is not given again).
func TestLegacyRunRecordsBecomeFilesAndAreReplaced(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 48, Customers: 5}, "")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, cfg)
	defer s.Close()
	ctx := context.Background()
	err = s.Update(ctx, func(sec *Section) error {
		db := sec.DB()
		for _, q := range []string{"CREATE TABLE findings (" + runrec.Findings.DDL() + ")",
			"INSERT INTO findings (snapshot_id, period, rule, severity, entity_id, amount, status, waived) VALUES ('" + sum.ID + "', '', 'legacy', 'high', 'e1', 1.50, 'new', false)",
			"UPDATE billsnap_meta SET value = '5' WHERE key = 'schema_version'",
			"DELETE FROM billsnap_meta WHERE key = 'run_records'"} { // as a state of version 5 has it
			if _, err := db.Exec(q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openStore(t, cfg) // the upgrade, in the first section
	defer s.Close()
	if got := keptFindings(t, cfg); len(got) != 1 || got[0] != "legacy e1" {
		t.Fatalf("after the upgrade the findings are %q", got)
	}
	err = s.UpdateAndPublish(ctx, func(sec *Section) error {
		db := sec.DB()
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if err := runrec.StageTables(ctx, conn); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO "+runrec.StagedFindings+" (snapshot_id, period, rule, severity, entity_id, amount, status, waived) VALUES (?, '', 'new', 'high', 'e2', 2.50, 'new', false)", sum.ID); err != nil {
			return err
		}
		return sec.KeepFindings(ctx, conn, sum.ID, "")
	})
	if err != nil {
		t.Fatal(err)
	}
	// A later publish links the records anew from the run files.
	if err := s.UpdateAndPublish(ctx, func(*Section) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := keptFindings(t, cfg); len(got) != 1 || got[0] != "new e2" {
		t.Fatalf("after a reconciliation kept again the findings are %q", got)
	}
	if n := count(t, readDB(t, cfg), "SELECT count(*) FROM findings WHERE rule = 'new'"); n != 1 {
		t.Errorf("readers see %d of the new findings", n)
	}
}

// keptFindings are "rule entity_id" of every finding readers see.
func keptFindings(t *testing.T, cfg testCfg) []string {
	t.Helper()
	rows, err := readDB(t, cfg).Query("SELECT rule || ' ' || entity_id FROM findings ORDER BY ALL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

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

// churnCustomers changes a customer's email, removes one and adds one,
// on day.
func churnCustomers(t *testing.T, sb *sandbox.Server, day int) {
	t.Helper()
	setEmail(t, sb, customerAt(t, sb, day%4).ID, fmt.Sprintf("day%d@example.com", day))
	if err := sb.Remove("Customers", customerAt(t, sb, 3+day).ID); err != nil {
		t.Fatal(err)
	}
	c := &sandbox.Customer{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", day), FullName: fmt.Sprintf("Day %d", day), CurrencyCode: "USD"}
	if err := sb.Add("Customers", c); err != nil {
		t.Fatal(err)
	}
}

// historyReadings are what the read model db gives of each snapshot of
// snaps but the last, by a name of the reading: the versions it closed,
// the change feed into it, what billsnap changes lists from the snapshot
// before, and every table as of its time.
func historyReadings(t *testing.T, db *sql.DB, snaps []*Summary) map[string]string {
	t.Helper()
	out := map[string]string{}
	read := func(name, q string, args ...any) {
		var got sql.NullString
		if err := db.QueryRow(q, args...).Scan(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = got.String
	}
	for i, s := range snaps[:len(snaps)-1] {
		read("the customers' versions closed by "+s.ID, `SELECT string_agg(concat_ws('|', id, snapshot_from, valid_from, valid_to, _raw), ';' ORDER BY id)
			FROM customers_history WHERE snapshot_to = ?`, s.ID)
		read("the change feed into "+s.ID, `SELECT string_agg(concat_ws('|', "table", id, op, fields, from_snapshot, "at", old_values, new_values), ';' ORDER BY "table", id, op)
			FROM changes WHERE to_snapshot = ?`, s.ID)
		for _, table := range []string{"customers", "invoices", "subscription_charges"} {
			read(table+" as of "+s.ID, `SELECT string_agg(concat_ws('|', snapshot_id, id, _raw), ';' ORDER BY id) FROM `+table+`_asof(?::TIMESTAMPTZ)`,
				history.TimeOf(s.Started))
		}
		if i > 0 {
			list, err := readmodel.ChangesBetween(context.Background(), db, history.TimeOf(snaps[i-1].Started), history.TimeOf(s.Started), readmodel.ChangeFilter{})
			if err != nil {
				t.Fatal(err)
			}
			out["billsnap changes into "+s.ID] = fmt.Sprint(list)
		}
	}
	return out
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
