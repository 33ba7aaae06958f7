package snapshot

import (
	"context"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
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
