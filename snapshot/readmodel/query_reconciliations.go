package readmodel

import (
	"context"
	"database/sql"
	"time"

	"github.com/billsnap/billsnap/money"
)

// Reconciliation is one stored reconciliation: a snapshot and a period.
type Reconciliation struct {
	Snapshot, Period string
	AsOf, At         time.Time // At: when it was reconciled
	Findings         int       // open findings
	Material         bool
}

func scanReconciliation(rows *sql.Rows) (Reconciliation, error) {
	var r Reconciliation
	err := rows.Scan(&r.Snapshot, &r.Period, &r.AsOf, &r.At, &r.Findings, &r.Material)
	return r, err
}

// ReconciliationsOf are the stored reconciliations of snapshot id, newest
// first (then by period).
func ReconciliationsOf(ctx context.Context, q Querier, id string) ([]Reconciliation, error) {
	return collect(ctx, q, scanReconciliation, `SELECT snapshot_id, coalesce(period, ''), as_of, reconciled_at, findings, material FROM reconciliations
		WHERE snapshot_id = ? ORDER BY reconciled_at DESC, coalesce(period, '')`, id)
}

// ReconciledAfter are the stored reconciliations of period reconciled
// after t, newest first.
func ReconciledAfter(ctx context.Context, q Querier, period string, t time.Time) ([]Reconciliation, error) {
	return collect(ctx, q, scanReconciliation, `SELECT snapshot_id, coalesce(period, ''), as_of, reconciled_at, findings, material FROM reconciliations
		WHERE `+periodIs+` AND reconciled_at > ? ORDER BY reconciled_at DESC`, period, t)
}

// ReconciledSnapshots are the IDs of the newest n snapshots that have a
// stored reconciliation, newest first (by start, then ID).
func ReconciledSnapshots(ctx context.Context, q Querier, n int) ([]string, error) {
	return collect(ctx, q, scanString, `SELECT r.snapshot_id FROM reconciliations r JOIN snapshots s ON s.id = r.snapshot_id
		GROUP BY r.snapshot_id, s.started ORDER BY s.started DESC, r.snapshot_id DESC LIMIT ?`, n)
}

// AsOf is the as-of of the newest stored reconciliation of (id, period);
// it is sql.ErrNoRows when there is none.
func AsOf(ctx context.Context, q Querier, id, period string) (time.Time, error) {
	var t time.Time
	err := q.QueryRowContext(ctx, "SELECT as_of FROM reconciliations WHERE snapshot_id = ? AND "+periodIs+" ORDER BY reconciled_at DESC LIMIT 1",
		id, period).Scan(&t)
	return t, err
}

// TrendRow is one reconciliation's open findings of one severity in one
// currency (their count and the amount not waived); a reconciliation
// without findings is one row with Severity and Currency "" and no
// findings.
type TrendRow struct {
	Snapshot           string
	Started            time.Time
	Severity, Currency string
	Findings           int
	Amount             money.Amount
}

// Trend is the totals of the last n stored reconciliations of period up
// to and including snapshot upTo (which started at started), oldest first,
// then by severity and currency.
func Trend(ctx context.Context, q Querier, period string, upTo string, started time.Time, n int) ([]TrendRow, error) {
	return collect(ctx, q, scanTrendRow, `
		WITH snaps AS (
		  SELECT r.snapshot_id, s.started FROM reconciliations r JOIN snapshots s ON s.id = r.snapshot_id
		  WHERE coalesce(r.period, '') = ? AND (s.started < ? OR s.id = ?)
		  ORDER BY s.started DESC, s.id DESC LIMIT ?)
		SELECT s.snapshot_id, s.started, coalesce(t.severity, ''), coalesce(t.currency, ''), coalesce(t.findings, 0),
		       CAST(coalesce(t.amount, 0) AS VARCHAR)
		FROM snaps s LEFT JOIN reconciliation_totals t ON t.snapshot_id = s.snapshot_id AND coalesce(t.period, '') = ?
		ORDER BY s.started, s.snapshot_id, 3, 4`, period, started, upTo, n, period)
}

func scanTrendRow(rows *sql.Rows) (TrendRow, error) {
	var t TrendRow
	var amount string
	if err := rows.Scan(&t.Snapshot, &t.Started, &t.Severity, &t.Currency, &t.Findings, &amount); err != nil {
		return t, err
	}
	if t.Findings == 0 {
		return t, nil
	}
	var err error
	t.Amount, err = money.Parse(amount)
	return t, err
}
