package reconcile

import (
	"context"
	"database/sql"
	"time"

	"github.com/billsnap/billsnap/money"
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
func Trend(ctx context.Context, db *sql.DB, period *Period, upTo SnapshotInfo, n int) ([]TrendPoint, error) {
	rows, err := db.QueryContext(ctx, `
		WITH snaps AS (
		  SELECT r.snapshot_id, s.started FROM reconciliations r JOIN snapshots s ON s.id = r.snapshot_id
		  WHERE r.period = ? AND (s.started < ? OR s.id = ?)
		  ORDER BY s.started DESC, s.id DESC LIMIT ?)
		SELECT s.snapshot_id, s.started, coalesce(t.severity, ''), coalesce(t.currency, ''), coalesce(t.findings, 0),
		       CAST(coalesce(t.amount, 0) AS VARCHAR)
		FROM snaps s LEFT JOIN reconciliation_totals t ON t.snapshot_id = s.snapshot_id AND t.period = ?
		ORDER BY s.started, s.snapshot_id, 3, 4`, period.String(), upTo.Started, upTo.ID, n, period.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TrendPoint
	for rows.Next() {
		var id, sev, cur, amount string
		var started time.Time
		var count int
		if err := rows.Scan(&id, &started, &sev, &cur, &count, &amount); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Snapshot != id {
			out = append(out, TrendPoint{Snapshot: id, Started: started, BySeverity: map[string]int{}, Amounts: map[string]money.Amount{}})
		}
		p := &out[len(out)-1]
		if count == 0 {
			continue
		}
		a, err := money.Parse(amount)
		if err != nil {
			return nil, err
		}
		p.BySeverity[sev] += count
		p.Amounts[cur] += a
	}
	return out, rows.Err()
}
