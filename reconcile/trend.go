package reconcile

import (
	"context"
	"database/sql"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Trend returns the last n reconciliations of the same period up to and
// including snapshot upTo, oldest first.
func Trend(ctx context.Context, db *sql.DB, period *findings.Period, upTo findings.SnapshotInfo, n int) ([]findings.TrendPoint, error) {
	rows, err := readmodel.Trend(ctx, db, period.String(), upTo.ID, upTo.Started, n)
	if err != nil {
		return nil, err
	}
	var out []findings.TrendPoint
	for _, row := range rows {
		if len(out) == 0 || out[len(out)-1].Snapshot != row.Snapshot {
			out = append(out, findings.TrendPoint{Snapshot: row.Snapshot, Started: row.Started, BySeverity: map[string]int{}, Amounts: map[string]money.Amount{}})
		}
		if row.Findings == 0 {
			continue
		}
		p := &out[len(out)-1]
		p.BySeverity[row.Severity] += row.Findings
		p.Amounts[row.Currency] += row.Amount
	}
	return out, nil
}
