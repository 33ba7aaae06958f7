package readmodel_test

import (
	"context"
	"testing"

	"github.com/billsnap/billsnap/snapshot/readmodel"
)

func TestCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, snapshotRows, reconRows, findingRows,
		`INSERT INTO snapshot_tables (snapshot_id, table_name, collection, parquet_rows, complete) VALUES
		  ('a', 'invoices', 'invoices', 4, true), ('a', 'charges', 'charges', 2, true), ('b', 'invoices', 'invoices', 9, true)`,
		`INSERT INTO snapshot_fields (snapshot_id, table_name, column_name, field, contract, nulls, strings, numbers, booleans,
		  objects, arrays, coerced, untyped) VALUES ('a', 'invoices', 'due', 'Due', true, 0, 4, 0, 0, 0, 0, 0, 0)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	copies := []readmodel.Copy{{ID: "x", Started: at(5, 3, 0)}, {ID: "y", Started: at(6, 3, 0)}}
	if err := readmodel.CopySnapshot(ctx, conn, "a", copies); err != nil {
		t.Fatal(err)
	}
	if err := readmodel.CopyReconciliations(ctx, conn, "a", copies, 7); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  int
	}{
		{"SELECT count(*) FROM snapshots WHERE id IN ('x', 'y') AND status = 'complete' AND finished = started + INTERVAL 1 MINUTE", 2},
		{"SELECT count(*) FROM snapshot_tables WHERE snapshot_id = 'y'", 2},
		{"SELECT sum(parquet_rows) FROM snapshot_tables WHERE snapshot_id = 'x'", 6},
		{"SELECT count(*) FROM snapshot_fields WHERE snapshot_id IN ('x', 'y') AND field = 'Due'", 2},
		{"SELECT count(*) FROM reconciliations WHERE snapshot_id = 'y' AND period = '2026-11' AND findings = 7 AND as_of = reconciled_at", 1},
		{"SELECT count(*) FROM duckdb_tables() WHERE table_name = 'copies'", 0},
	} {
		var n int
		if err := conn.QueryRowContext(ctx, c.query).Scan(&n); err != nil || n != c.want {
			t.Errorf("%s: %d, %v; want %d", c.query, n, err, c.want)
		}
	}
	if err := readmodel.AddTotals(ctx, conn, "findings"); err != nil {
		t.Fatal(err)
	}
	var n, amount float64
	err = conn.QueryRowContext(ctx, `SELECT sum(findings), sum(amount) FROM reconciliation_totals WHERE snapshot_id = 's1' AND period = '2026-11'`).Scan(&n, &amount)
	if err != nil || n != 2 || amount != 12.75 {
		t.Errorf("AddTotals: %v findings, %v, %v; want the 2 open findings (the waived one and the resolved one not), 12.75", n, amount, err)
	}
}
