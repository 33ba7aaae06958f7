package main

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

func TestCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := errors.Join(migrate.State(ctx, db), runrec.PlainHistory(ctx, db)); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		`INSERT INTO snapshots (id, started, finished, status) VALUES ('a', TIMESTAMP '2026-11-01 03:00:00', TIMESTAMP '2026-11-01 03:10:00', 'complete')`,
		`INSERT INTO snapshot_tables (snapshot_id, table_name, collection, parquet_rows, complete) VALUES
		  ('a', 'invoices', 'invoices', 4, true), ('a', 'charges', 'charges', 2, true), ('b', 'invoices', 'invoices', 9, true)`,
		`INSERT INTO snapshot_fields (snapshot_id, table_name, column_name, field, contract, nulls, strings, numbers, booleans,
		  objects, arrays, coerced, untyped) VALUES ('a', 'invoices', 'due', 'Due', true, 0, 4, 0, 0, 0, 0, 0, 0)`,
		`INSERT INTO reconciliations VALUES ('a', '2026-11', TIMESTAMPTZ '2026-11-01 00:00:00+00', TIMESTAMPTZ '2026-11-01 04:00:00+00', 0, false)`,
		`INSERT INTO findings (snapshot_id, period, rule, severity, entity, entity_id, amount, currency, status, first_seen, waived) VALUES
		  ('s1', '2026-11', 'r2', 'high', 'charge', 'C-1', 10.50, 'EUR', 'new', 's1', false),
		  ('s1', '2026-11', 'r1', 'low', 'charge', 'C-2', -3.00, NULL, 'recurring', 's0', true),
		  ('s1', '2026-11', 'r1', 'low', 'charge', 'C-0', 7.00, 'USD', 'resolved', 's0', false)`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	at := func(day int) time.Time { return time.Date(2026, 11, day, 3, 0, 0, 0, time.UTC) }
	copies := []Copy{{ID: "x", Started: at(5)}, {ID: "y", Started: at(6)}}
	if err := CopySnapshot(ctx, conn, "a", copies); err != nil {
		t.Fatal(err)
	}
	if err := CopyReconciliations(ctx, conn, "a", copies, 7); err != nil {
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
	if err := AddTotals(ctx, conn, "findings"); err != nil {
		t.Fatal(err)
	}
	var n, amount float64
	err = conn.QueryRowContext(ctx, `SELECT sum(findings), sum(amount) FROM reconciliation_totals WHERE snapshot_id = 's1' AND period = '2026-11'`).Scan(&n, &amount)
	if err != nil || n != 1 || amount != 10.50 {
		t.Errorf("AddTotals: %v findings, %v, %v; want the 1 open finding (the waived one and the resolved one not), 10.50", n, amount, err)
	}
}
