package readmodel

import (
	"context"
	"database/sql"
	"time"

	"github.com/billsnap/billsnap/money"
)

// PeriodFigures are the measures of one month that the records of a
// snapshot give, per currency (the flux review's, package flux): what
// was billed, collected and credited in it, and what was still owed at
// its end.
type PeriodFigures struct {
	Billed          map[string]money.Amount // invoices' total_amount, invoice_date in the month
	Collected       map[string]money.Amount // settled payments' amount, transaction_date in the month
	Credited        map[string]money.Amount // settled refunds' amount, transaction_date in the month
	OpenReceivables map[string]money.Amount // invoices' total_amount, dated before the month's end and not paid before it
}

// FiguresOf reads the figures of the month [start, end) from the records
// of snapshot snap, each per its record's currency_code ("" for none). A
// record whose date or amount is NULL (untyped) counts in none.
func FiguresOf(ctx context.Context, q Querier, snap string, start, end time.Time) (PeriodFigures, error) {
	f := PeriodFigures{Billed: map[string]money.Amount{}, Collected: map[string]money.Amount{}, Credited: map[string]money.Amount{},
		OpenReceivables: map[string]money.Amount{}}
	from, to := start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339)
	inv, tx := tablesOf(ctx, q, snap)
	rows, err := q.QueryContext(ctx, `
SELECT 0, coalesce(currency_code, ''), CAST(sum(total_amount) AS VARCHAR) FROM `+inv+`
 WHERE snapshot_id = $1 AND invoice_date >= CAST($2 AS TIMESTAMPTZ) AND invoice_date < CAST($3 AS TIMESTAMPTZ) AND total_amount IS NOT NULL GROUP BY 2
UNION ALL
SELECT CASE type WHEN 'Payment' THEN 1 ELSE 2 END, coalesce(currency_code, ''), CAST(sum(amount) AS VARCHAR) FROM `+tx+`
 WHERE snapshot_id = $1 AND status = 'Settled' AND type IN ('Payment', 'Refund') AND amount IS NOT NULL
   AND transaction_date >= CAST($2 AS TIMESTAMPTZ) AND transaction_date < CAST($3 AS TIMESTAMPTZ) GROUP BY 1, 2
UNION ALL
SELECT 3, coalesce(currency_code, ''), CAST(sum(total_amount) AS VARCHAR) FROM `+inv+`
 WHERE snapshot_id = $1 AND invoice_date < CAST($3 AS TIMESTAMPTZ) AND (payment_date IS NULL OR payment_date >= CAST($3 AS TIMESTAMPTZ))
   AND total_amount IS NOT NULL GROUP BY 2`, snap, from, to)
	if err != nil {
		return f, err
	}
	defer rows.Close()
	into := []map[string]money.Amount{f.Billed, f.Collected, f.Credited, f.OpenReceivables}
	for rows.Next() {
		if err := scanFigure(rows, into); err != nil {
			return f, err
		}
	}
	return f, rows.Err()
}

// scanFigure reads a row of FiguresOf (which measure, currency, amount)
// into its measure's map.
func scanFigure(rows *sql.Rows, into []map[string]money.Amount) error {
	var which int
	var cur, sum string
	if err := rows.Scan(&which, &cur, &sum); err != nil {
		return err
	}
	a, err := money.Parse(sum)
	into[which][cur] = a
	return err
}

// tablesOf are the relations of invoices and transactions that hold
// snapshot snap's records: the model's latest_ tables when it is theirs
// (DuckDB's own tables, where the views over every snapshot read each
// snapshot's Parquet footers), else (another snapshot, or a reading of
// the state, which has none) the views over every snapshot.
func tablesOf(ctx context.Context, q Querier, snap string) (string, string) {
	var latest string
	if err := q.QueryRowContext(ctx, "SELECT id FROM latest_snapshot").Scan(&latest); err != nil || latest != snap {
		return "invoices", "transactions"
	}
	if ok, err := Has(ctx, q, "latest_invoices"); err == nil && ok {
		return "latest_invoices", "latest_transactions"
	}
	return "invoices", "transactions"
}
