package readmodel

import (
	"context"
	"database/sql"
	"fmt"
)

// The functions of this file read a table of records of the read model
// (a catalogue's table over every snapshot: invoices, subscription_charges
// …); table and column are names the caller took from the catalogue, never
// a user's text.

// Record is one record's row: its columns' names and values as the driver
// gives them, but the raw JSON (_raw) as DuckDB's text; no snapshot_id.
type Record struct {
	Columns []string
	Values  []any
}

// RecordOf is record id of table in snapshot snap; ok is false when the
// snapshot does not hold it.
func RecordOf(ctx context.Context, q Querier, table, snap, id string) (r Record, ok bool, err error) {
	rows, err := q.QueryContext(ctx, fmt.Sprintf("SELECT * EXCLUDE (snapshot_id) REPLACE (CAST(_raw AS VARCHAR) AS _raw) FROM %s WHERE snapshot_id = ? AND id = ? LIMIT 1",
		table), snap, id)
	if err != nil {
		return r, false, err
	}
	defer rows.Close()
	if r.Columns, err = rows.Columns(); err != nil {
		return r, false, err
	}
	if !rows.Next() {
		return r, false, rows.Err()
	}
	r.Values = make([]any, len(r.Columns))
	ptrs := make([]any, len(r.Columns))
	for i := range r.Values {
		ptrs[i] = &r.Values[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return r, false, err
	}
	return r, true, rows.Err()
}

// IDsWhere are the IDs of the first 200 records of table in snapshot snap
// whose column holds value, in order.
func IDsWhere(ctx context.Context, q Querier, table, column, snap, value string) ([]string, error) {
	return collect(ctx, q, scanString, fmt.Sprintf("SELECT id FROM %s WHERE snapshot_id = ? AND %s = ? ORDER BY id LIMIT 200", table, column), snap, value)
}

// SnapshotsHolding are the snapshots whose records of table hold record
// id, in order.
func SnapshotsHolding(ctx context.Context, q Querier, table, id string) ([]string, error) {
	return collect(ctx, q, scanString, fmt.Sprintf("SELECT DISTINCT snapshot_id FROM %s WHERE id = ? ORDER BY 1", table), id)
}

// RawOf is the raw JSON of record id of table in snapshot snap, as
// DuckDB's text; it is sql.ErrNoRows when the snapshot does not hold it.
func RawOf(ctx context.Context, q Querier, table, snap, id string) (sql.NullString, error) {
	var raw sql.NullString
	err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT CAST(_raw AS VARCHAR) FROM %s WHERE snapshot_id = ? AND id = ?", table), snap, id).Scan(&raw)
	return raw, err
}

// Has tells whether the read model has the table or view name.
func Has(ctx context.Context, q Querier, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' AND table_name = ?", name).Scan(&n)
	return n > 0, err
}

// ChargesOfReference are the IDs of the subscription charges of snapshot
// snap whose reference is ref, its case folded.
func ChargesOfReference(ctx context.Context, q Querier, snap, ref string) ([]string, error) {
	return collect(ctx, q, scanString, "SELECT id FROM subscription_charges WHERE snapshot_id = ? AND lower(reference_id) = lower(?)", snap, ref)
}

// SubscriptionsOfReferences maps the reference of each subscription
// charge of snapshot snap to its subscription, both in lower case ("" for
// a charge without one).
func SubscriptionsOfReferences(ctx context.Context, q Querier, snap string) (map[string]string, error) {
	type pair struct{ ref, sub string }
	pairs, err := collect(ctx, q, func(rows *sql.Rows) (pair, error) {
		var p pair
		var sub sql.NullString
		err := rows.Scan(&p.ref, &sub)
		p.sub = sub.String
		return p, err
	}, "SELECT DISTINCT lower(reference_id), lower(subscription_id) FROM subscription_charges WHERE snapshot_id = ? AND reference_id IS NOT NULL", snap)
	out := map[string]string{}
	for _, p := range pairs {
		out[p.ref] = p.sub
	}
	return out, err
}
