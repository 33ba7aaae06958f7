package readmodel

import (
	"context"
	"database/sql"
)

// Querier is what the queries run on: a *sql.DB (the read model from
// snapshot.OpenRead, the state) or a *sql.Conn of one.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// collect runs query on q and scans each row with scan, in order.
func collect[T any](ctx context.Context, q Querier, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanString scans a row of one string.
func scanString(rows *sql.Rows) (string, error) {
	var s string
	err := rows.Scan(&s)
	return s, err
}

// periodIs is the condition that a row's period is the one of the next
// argument, "" for a whole-snapshot reconciliation. The read model's views
// show a whole snapshot's period as NULL (runrec.Records.Views), the state
// and the staged tables, and the files older stores kept, as the empty
// string: the
// condition holds for both.
const periodIs = "coalesce(period, '') = ?"
