package job

import (
	"context"
	"database/sql"

	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// metricsModel is what schedule's metrics read of the read model db:
// readmodel's queries.
type metricsModel struct{ db *sql.DB }

// metricsOf is the read model db as the metrics read it; nil (the runs'
// metrics only) when db is nil.
func metricsOf(db *sql.DB) schedule.ReadModel {
	if db == nil {
		return nil
	}
	return metricsModel{db}
}

func (m metricsModel) Has(ctx context.Context, name string) (bool, error) {
	return readmodel.Has(ctx, m.db, name)
}

func (m metricsModel) Manifested(ctx context.Context, id string) (bool, error) {
	return readmodel.Manifested(ctx, m.db, id)
}

func (m metricsModel) Records(ctx context.Context, id string) (sql.NullFloat64, error) {
	return readmodel.Records(ctx, m.db, id)
}

func (m metricsModel) OpenBySeverity(ctx context.Context, id, period string) (map[string]int, error) {
	return readmodel.OpenBySeverity(ctx, m.db, id, period)
}

func (m metricsModel) FieldOutcomes(ctx context.Context, id string) ([]schedule.FieldOutcome, error) {
	rows, err := readmodel.FieldOutcomes(ctx, m.db, id)
	out := make([]schedule.FieldOutcome, len(rows))
	for i, o := range rows {
		out[i] = schedule.FieldOutcome(o)
	}
	return out, err
}

func (m metricsModel) NotJudged(ctx context.Context, id, period string) ([]schedule.RuleCount, error) {
	rows, err := readmodel.NotJudged(ctx, m.db, id, period)
	out := make([]schedule.RuleCount, len(rows))
	for i, c := range rows {
		out[i] = schedule.RuleCount(c)
	}
	return out, err
}
