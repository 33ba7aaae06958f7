package snapshot

import (
	"context"
	"database/sql"
	"fmt"
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
