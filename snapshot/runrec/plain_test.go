package runrec_test

import (
	"context"
	"testing"
	"time"

	"github.com/billsnap/billsnap/snapshot/runrec"
)

// What a reconciliation staged, kept in a plain database's tables,
// replaces an earlier reconciliation's of the same snapshot and period:
// its findings, its row of reconciliations and its totals (the open
// findings, neither resolved nor waived, of each severity and currency,
// and their amount).
func TestPlainKeepsAReconciliationInPlaceOfTheEarlierOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := stateDB(t)
	if err := runrec.PlainHistory(ctx, db); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	p := runrec.Plain{Database: db}
	rec := runrec.Reconciliation{Snapshot: "s1", Period: "2026-11", AsOf: time.Unix(0, 0), At: time.Unix(60, 0), Open: 2}
	for _, rows := range []string{
		`('s1', '2026-11', 'r', 'high', 'e0', 9.00, 'EUR', 'new', false)`,
		`('s1', '2026-11', 'r', 'high', 'e1', 1.50, 'EUR', 'new', false), ('s1', '2026-11', 'r', 'high', 'e2', 2.00, 'EUR', 'recurring', true),
		 ('s1', '2026-11', 'r', 'low', 'e3', 4.00, 'USD', 'resolved', false)`,
	} {
		if err := runrec.StageTables(ctx, conn); err != nil {
			t.Fatal(err)
		}
		q := "INSERT INTO " + runrec.StagedFindings + " (snapshot_id, period, rule, severity, entity_id, amount, currency, status, waived) VALUES " + rows
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
		if err := p.Stage(ctx, conn, rec); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "DROP TABLE "+runrec.StagedFindings+"; DROP TABLE "+runrec.StagedUnjudged+"; DROP TABLE "+runrec.StagedRechecks); err != nil {
			t.Fatal(err)
		}
	}
	var findings, recs int
	var totals string
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM findings), (SELECT count(*) FROM reconciliations),
		(SELECT string_agg(severity || ' ' || currency || ' ' || findings || ' ' || amount, '; ' ORDER BY severity) FROM reconciliation_totals)`).Scan(&findings, &recs, &totals)
	if err != nil {
		t.Fatal(err)
	}
	if findings != 3 || recs != 1 || totals != "high EUR 1 1.50" {
		t.Errorf("findings %d, reconciliations %d, totals %q; want 3, 1, \"high EUR 1 1.50\" (the waived finding neither counted nor added)", findings, recs, totals)
	}
}
