package readmodel

import (
	"context"
	"database/sql"
	"slices"

	"github.com/billsnap/billsnap/snapshot/runrec"
)

// OpenBySeverity counts the open (neither resolved nor waived) stored findings of
// reconciliation (id, period) by severity; a severity with none is absent.
func OpenBySeverity(ctx context.Context, q Querier, id, period string) (map[string]int, error) {
	counts, err := ofRun(ctx, q, id, period, func(s runSources) ([]RuleCount, error) {
		fs := s.of(runrec.Findings)
		return collect(ctx, q, scanCount, "SELECT severity, count(*) FROM "+fs.rel+" WHERE snapshot_id = ? AND "+periodIs+" AND status <> 'resolved' AND NOT waived GROUP BY 1",
			slices.Concat(fs.args, []any{id, period})...)
	})
	return countsBy(counts), err
}

// RuleCount is a number of records for one rule.
type RuleCount struct {
	Rule string
	N    int
}

// scanCount scans a row of a name and a count.
func scanCount(rows *sql.Rows) (RuleCount, error) {
	var c RuleCount
	err := rows.Scan(&c.Rule, &c.N)
	return c, err
}

// countsBy is counts by name.
func countsBy(counts []RuleCount) map[string]int {
	out := map[string]int{}
	for _, c := range counts {
		out[c.Rule] = c.N
	}
	return out
}

// NotJudged are how many records each rule did not judge in
// reconciliation (id, period), by rule; a rule that judged every record is
// absent.
func NotJudged(ctx context.Context, q Querier, id, period string) ([]RuleCount, error) {
	return ofRun(ctx, q, id, period, func(s runSources) ([]RuleCount, error) {
		us := s.of(runrec.Unjudged)
		return collect(ctx, q, scanCount, "SELECT rule, count(DISTINCT entity_id) FROM "+us.rel+" WHERE snapshot_id = ? AND "+periodIs+" GROUP BY rule ORDER BY rule",
			slices.Concat(us.args, []any{id, period})...)
	})
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
