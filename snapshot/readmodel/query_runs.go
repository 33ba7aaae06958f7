package readmodel

import (
	"context"
	"database/sql"
)

// OpenBySeverity counts the open (not resolved) stored findings of
// reconciliation (id, period) by severity; a severity with none is absent.
func OpenBySeverity(ctx context.Context, q Querier, id, period string) (map[string]int, error) {
	type count struct {
		severity string
		n        int
	}
	counts, err := collect(ctx, q, func(rows *sql.Rows) (count, error) {
		var c count
		err := rows.Scan(&c.severity, &c.n)
		return c, err
	}, "SELECT severity, count(*) FROM findings WHERE snapshot_id = ? AND "+periodIs+" AND status <> 'resolved' GROUP BY 1", id, period)
	out := map[string]int{}
	for _, c := range counts {
		out[c.severity] = c.n
	}
	return out, err
}

// RuleCount is a number of records for one rule.
type RuleCount struct {
	Rule string
	N    int
}

// NotJudged are how many records each rule did not judge in
// reconciliation (id, period), by rule; a rule that judged every record is
// absent.
func NotJudged(ctx context.Context, q Querier, id, period string) ([]RuleCount, error) {
	return collect(ctx, q, func(rows *sql.Rows) (RuleCount, error) {
		var c RuleCount
		err := rows.Scan(&c.Rule, &c.N)
		return c, err
	}, "SELECT rule, count(DISTINCT entity_id) FROM unjudged WHERE snapshot_id = ? AND "+periodIs+" GROUP BY rule ORDER BY rule", id, period)
}

// FieldOutcome is a count of what a snapshot's walk made of the fields:
// of one field's values (Table and Field set: Outcome "coerced" or
// "untyped"), or of fields (Table and Field "": Outcome "new", fields with
// no typed column, or "absent", typed columns no record of a table with
// rows carried).
type FieldOutcome struct {
	Table, Field, Outcome string
	N                     int64
}

// FieldOutcomes are the field outcomes of snapshot id from its manifest,
// those of fields first (by table and field), then the counts of fields.
func FieldOutcomes(ctx context.Context, q Querier, id string) ([]FieldOutcome, error) {
	return collect(ctx, q, func(rows *sql.Rows) (FieldOutcome, error) {
		var o FieldOutcome
		var table, field sql.NullString
		err := rows.Scan(&table, &field, &o.Outcome, &o.N)
		o.Table, o.Field = table.String, field.String
		return o, err
	}, `
		SELECT table_name, field, 'coerced', coerced FROM snapshot_fields_of($1) WHERE coerced > 0
		UNION ALL
		SELECT table_name, field, 'untyped', untyped FROM snapshot_fields_of($1) WHERE untyped > 0
		UNION ALL
		SELECT NULL, NULL, 'new', count(*) FROM snapshot_fields_of($1) WHERE column_name IS NULL
		UNION ALL
		SELECT NULL, NULL, 'absent', count(*) FROM snapshot_fields_of($1) f JOIN snapshot_tables_of($1) t USING (snapshot_id, table_name)
		WHERE column_name IS NOT NULL AND t.duckdb_rows > 0
		  AND nulls + strings + numbers + booleans + objects + arrays = 0
		ORDER BY ALL`, id)
}

// Records is how many records snapshot id took from the service's lists,
// as its manifest says (the rows of its collections' tables, not of their
// child tables); not valid when the manifest has no table of it.
func Records(ctx context.Context, q Querier, id string) (sql.NullFloat64, error) {
	var n sql.NullFloat64
	err := q.QueryRowContext(ctx, "SELECT sum(parquet_rows) FROM snapshot_tables_of(?) WHERE collection = table_name", id).Scan(&n)
	return n, err
}
