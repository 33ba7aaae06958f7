package schedule

import (
	"context"
	"database/sql"
)

// ReadModel is what the metrics read of a store's read model about the
// snapshot and reconciliation of a job's last run. The main wires the
// store's (job: readmodel's queries over the read model's database), so
// the schedule stands without the engine.
type ReadModel interface {
	// Has tells whether the read model has the table or view name.
	Has(ctx context.Context, name string) (bool, error)
	// Manifested tells whether it has the manifest of snapshot id (a
	// snapshot still running has none yet).
	Manifested(ctx context.Context, id string) (bool, error)
	// Records is how many records snapshot id took from the service's
	// lists; not valid when the manifest has no table of it.
	Records(ctx context.Context, id string) (sql.NullFloat64, error)
	// FieldOutcomes are what snapshot id's walk made of the fields: of a
	// field's values first (by table and field), then of fields.
	FieldOutcomes(ctx context.Context, id string) ([]FieldOutcome, error)
	// OpenBySeverity counts the open findings of reconciliation (id,
	// period) by severity; a severity with none is absent.
	OpenBySeverity(ctx context.Context, id, period string) (map[string]int, error)
	// NotJudged are how many records each rule did not judge in
	// reconciliation (id, period), by rule; a rule that judged every
	// record is absent.
	NotJudged(ctx context.Context, id, period string) ([]RuleCount, error)
}

// FieldOutcome is a count of what a snapshot's walk made of the fields:
// of one field's values (Table and Field set: Outcome "coerced" or
// "untyped"), or of fields (Table and Field "": Outcome "new" or
// "absent").
type FieldOutcome struct {
	Table, Field, Outcome string
	N                     int64
}

// RuleCount is a number of records for one rule.
type RuleCount struct {
	Rule string
	N    int
}
