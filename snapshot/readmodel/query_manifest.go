package readmodel

import (
	"context"
	"database/sql"
	"errors"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/manifest"
)

// Manifest reads the per-table figures of snapshot id from db (the state,
// or a read model: snapshot_tables_of reads the snapshot's rows only).
func Manifest(ctx context.Context, db *sql.DB, id string) ([]manifest.TableStats, error) {
	rows, err := db.QueryContext(ctx, `SELECT table_name, collection, coalesce(walks, 0), coalesce(pages, 0), coalesce(records_received, 0),
		coalesce(distinct_ids, -1), coalesce(total_count, -1), coalesce(parquet_rows, 0), coalesce(duckdb_rows, 0),
		coalesce(ids_sha256, ''), coalesce(seconds, 0), complete, coalesce(problem, '')
		FROM snapshot_tables_of(?)`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byName := map[string]manifest.TableStats{}
	for rows.Next() {
		var st manifest.TableStats
		if err := rows.Scan(&st.Table, &st.Collection, &st.Walks, &st.Pages, &st.Received, &st.Distinct, &st.TotalCount,
			&st.ParquetRows, &st.DuckDBRows, &st.IDsSHA256, &st.Seconds, &st.Complete, &st.Problem); err != nil {
			return nil, err
		}
		byName[st.Table] = st
	}
	var out []manifest.TableStats
	for _, t := range catalog.Tables() {
		if st, ok := byName[t.Name]; ok {
			out = append(out, st)
		}
	}
	return out, rows.Err()
}

// ManifestOf is Manifest over db as a function of the snapshot's ID,
// for a reader handed the figures rather than the database (evidence's
// Figures).
func ManifestOf(db *sql.DB) func(ctx context.Context, id string) ([]manifest.TableStats, error) {
	return func(ctx context.Context, id string) ([]manifest.TableStats, error) { return Manifest(ctx, db, id) }
}

// Fields reads what snapshot id received of each field from db, in the
// order of the tables and their columns (new fields last in their table).
// A snapshot recorded before repairs were counted has Repaired 0.
func Fields(ctx context.Context, db *sql.DB, id string) ([]manifest.FieldStats, error) {
	rows, err := db.QueryContext(ctx, `SELECT * REPLACE (coalesce(column_name, '') AS column_name, coalesce(kind, '') AS kind,
		coalesce(example_id, '') AS example_id) FROM snapshot_fields_of(?)`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []manifest.FieldStats
	for rows.Next() {
		var f manifest.FieldStats
		if err := rows.Scan(fieldDests(&f, names)...); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	manifest.SortFields(out, catalog.Tables())
	return out, rows.Err()
}

// fieldDests are where the columns names of snapshot_fields go in f, by
// name: a record file written before a column was added lacks it.
func fieldDests(f *manifest.FieldStats, names []string) []any {
	t := &f.Types
	by := map[string]any{"table_name": &f.Table, "column_name": &f.Column, "field": &f.Field, "kind": &f.Kind, "contract": &f.Contract,
		"nulls": &t.Null, "strings": &t.String, "numbers": &t.Number, "booleans": &t.Boolean, "objects": &t.Object, "arrays": &t.Array,
		"coerced": &f.Coerced, "untyped": &f.Untyped, "example_id": &f.Example, "repaired": &nullInt{&f.Repaired}}
	dests := make([]any, len(names))
	for i, n := range names {
		if dests[i] = by[n]; dests[i] == nil {
			dests[i] = new(any) // snapshot_id
		}
	}
	return dests
}

// nullInt scans a BIGINT that may be NULL (0) into n.
type nullInt struct{ n *int64 }

func (d *nullInt) Scan(v any) error {
	var x sql.NullInt64
	err := x.Scan(v)
	*d.n = x.Int64
	return err
}

// LatestNotes reads, from db (a read model), what the latest complete
// snapshot received of its fields otherwise than assumed. id is "" when
// there is no snapshot yet, or the store was written by a billsnap that
// did not count fields.
func LatestNotes(ctx context.Context, db *sql.DB) (id string, n manifest.FieldNotes, err error) {
	err = db.QueryRowContext(ctx, `SELECT id FROM latest_snapshot
		WHERE EXISTS (SELECT 1 FROM information_schema.tables WHERE table_name = 'snapshot_fields')`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", n, nil
	}
	if err != nil {
		return "", n, err
	}
	fields, err := Fields(ctx, db, id)
	if err != nil {
		return "", n, err
	}
	tables, err := Manifest(ctx, db, id)
	if err != nil {
		return "", n, err
	}
	return id, manifest.Notes(fields, tables), nil
}

// ExampleQuery is a query over a read model to show a newcomer: invoices
// and what they billed, per currency, in the latest snapshot.
const ExampleQuery = "SELECT currency_code, count(*) AS invoices, sum(total_amount) AS billed FROM latest_invoices GROUP BY ALL ORDER BY 1"
