package reconcile

import (
	"context"
	"database/sql"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// TrendPoint is one reconciled snapshot's open findings.
type TrendPoint struct {
	Snapshot   string
	Started    time.Time
	BySeverity map[string]int          // open findings, waived included
	Amounts    map[string]money.Amount // unwaived open findings, per currency
}

// Count is the point's open findings.
func (p TrendPoint) Count() int {
	n := 0
	for _, c := range p.BySeverity {
		n += c
	}
	return n
}

// Trend returns the last n reconciliations of the same period up to and
// including snapshot upTo, oldest first.
func Trend(ctx context.Context, db *sql.DB, period *findings.Period, upTo findings.SnapshotInfo, n int) ([]TrendPoint, error) {
	rows, err := readmodel.Trend(ctx, db, period.String(), upTo.ID, upTo.Started, n)
	if err != nil {
		return nil, err
	}
	var out []TrendPoint
	for _, row := range rows {
		if len(out) == 0 || out[len(out)-1].Snapshot != row.Snapshot {
			out = append(out, TrendPoint{Snapshot: row.Snapshot, Started: row.Started, BySeverity: map[string]int{}, Amounts: map[string]money.Amount{}})
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
