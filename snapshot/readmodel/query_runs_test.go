package readmodel_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// manifestRows are snapshot s1's tables and fields: a collection with a
// child table, a field coerced, one untyped, one new (no column) and one
// absent (a typed column no record carried), and a field of another
// snapshot.
const manifestRows = `INSERT INTO snapshot_tables (snapshot_id, table_name, collection, parquet_rows, duckdb_rows, complete) VALUES
	('s1', 'invoices', 'invoices', 40, 40, true),
	('s1', 'invoice_lines', 'invoices', 90, 90, true),
	('s1', 'charges', 'charges', 2, 0, true),
	('s2', 'invoices', 'invoices', 7, 7, true);
	INSERT INTO snapshot_fields (snapshot_id, table_name, column_name, field, kind, contract, nulls, strings, numbers, booleans,
	  objects, arrays, coerced, untyped) VALUES
	('s1', 'invoices', 'amount', 'Amount', 'scalar', true, 0, 0, 40, 0, 0, 0, 3, 0),
	('s1', 'invoices', 'due', 'Due', 'scalar', true, 0, 38, 0, 0, 0, 0, 0, 2),
	('s1', 'invoices', NULL, 'Extra', NULL, false, 0, 40, 0, 0, 0, 0, 0, 0),
	('s1', 'invoices', 'memo', 'Memo', 'scalar', true, 0, 0, 0, 0, 0, 0, 0, 0),
	('s1', 'charges', 'memo', 'Memo', 'scalar', true, 0, 0, 0, 0, 0, 0, 0, 0),
	('s2', 'invoices', 'amount', 'Amount', 'scalar', true, 0, 0, 7, 0, 0, 0, 9, 0)`

const unjudgedRows = `INSERT INTO unjudged (snapshot_id, period, rule, entity_id, table_name, field, json_type) VALUES
	('s1', '2026-11', 'r2', 'C-1', 'charges', 'Quantity', 'string'),
	('s1', '2026-11', 'r2', 'C-1', 'charges', 'Price', 'string'),
	('s1', '2026-11', 'r2', 'C-3', 'charges', 'Price', 'string'),
	('s1', '2026-11', 'r1', 'C-3', 'charges', 'Price', 'string'),
	('s1', '2026-10', 'r1', 'C-4', 'charges', 'Price', 'string')`

func TestRunMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, findingRows, manifestRows, unjudgedRows)
	sev, err := readmodel.OpenBySeverity(ctx, db, "s1", "2026-11")
	if want := map[string]int{"high": 2}; err != nil || !maps.Equal(sev, want) {
		t.Errorf("OpenBySeverity: %v, %v; want %v (the low one is waived, the other resolved)", sev, err, want)
	}
	nj, err := readmodel.NotJudged(ctx, db, "s1", "2026-11")
	if want := []readmodel.RuleCount{{"r1", 1}, {"r2", 2}}; err != nil || !slices.Equal(nj, want) {
		t.Errorf("NotJudged: %v, %v; want %v (records, not fields)", nj, err, want)
	}
	fo, err := readmodel.FieldOutcomes(ctx, db, "s1")
	want := []readmodel.FieldOutcome{{"invoices", "Amount", "coerced", 3}, {"invoices", "Due", "untyped", 2},
		{"", "", "absent", 1}, {"", "", "new", 1}}
	if err != nil || !slices.Equal(fo, want) {
		t.Errorf("FieldOutcomes:\n%v, %v\nwant\n%v", fo, err, want)
	}
	if n, err := readmodel.Records(ctx, db, "s1"); err != nil || !n.Valid || n.Float64 != 42 {
		t.Errorf("Records(s1): %v, %v; want the collections' rows, 42", n, err)
	}
	if n, err := readmodel.Records(ctx, db, "s9"); err != nil || n.Valid {
		t.Errorf("Records(s9): %v, %v; want none", n, err)
	}
}

func TestUntypedColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := state(t, manifestRows).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"SET VARIABLE snapshot_id = 's1'::VARCHAR", "SET VARIABLE previous_snapshot_id = NULL::VARCHAR"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	got, err := readmodel.UntypedColumns(ctx, conn)
	if want := []readmodel.UntypedColumn{{"s1", "invoices", "due", "Due", false}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("UntypedColumns: %+v, %v; want %+v", got, err, want)
	}
}
