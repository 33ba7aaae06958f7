package main

import (
	"context"
	"time"

	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// The bench's history of many snapshots is made from one: copies of its
// records in the state (CopySnapshot, CopyReconciliations, AddTotals).

// Copy is a snapshot made as a copy of another: its ID and start.
type Copy struct {
	ID      string
	Started time.Time
}

// withCopies runs fn with the temporary table copies holding to, on q (a
// connection: the table is its session's), and drops it after.
func withCopies(ctx context.Context, q readmodel.Querier, to []Copy, fn func() error) error {
	if _, err := q.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE copies (id VARCHAR, started TIMESTAMPTZ)"); err != nil {
		return err
	}
	for _, c := range to {
		if _, err := q.ExecContext(ctx, "INSERT INTO copies VALUES (?, ?)", c.ID, c.Started); err != nil {
			return err
		}
	}
	err := fn()
	if _, derr := q.ExecContext(ctx, "DROP TABLE temp.main.copies"); err == nil {
		err = derr
	}
	return err
}

// CopySnapshot records snapshots to as complete copies of snapshot from,
// each finished a minute after its start: from's manifest, its fields and
// its Parquet columns under their IDs. It copies no records and no
// finding: the benchmark's history of many snapshots, made from one.
// q is a connection of the state.
func CopySnapshot(ctx context.Context, q readmodel.Querier, from string, to []Copy) error {
	return withCopies(ctx, q, to, func() error {
		for _, s := range []string{
			`INSERT INTO snapshots SELECT f.id, f.started, f.started + INTERVAL 1 MINUTE, 'complete', s.base_url, s.front_url, NULL
			   FROM copies f, snapshots s WHERE s.id = $1`,
			`INSERT INTO snapshot_tables SELECT f.id, t.* EXCLUDE (snapshot_id) FROM copies f, snapshot_tables t WHERE t.snapshot_id = $1`,
			`INSERT INTO snapshot_fields SELECT f.id, t.* EXCLUDE (snapshot_id) FROM copies f, snapshot_fields t WHERE t.snapshot_id = $1`,
			`INSERT INTO parquet_columns SELECT f.id, t.* EXCLUDE (snapshot_id) FROM copies f, parquet_columns t WHERE t.snapshot_id = $1`,
			`INSERT INTO snapshot_files SELECT f.id, t.* EXCLUDE (snapshot_id) FROM copies f, snapshot_files t WHERE t.snapshot_id = $1`,
		} {
			if _, err := q.ExecContext(ctx, s, from); err != nil {
				return err
			}
		}
		return nil
	})
}

// CopyReconciliations records, for each snapshot of to, snapshot from's
// reconciliations as its own, as of and reconciled at its start, with
// findings open findings.
func CopyReconciliations(ctx context.Context, q readmodel.Querier, from string, to []Copy, findings int) error {
	return withCopies(ctx, q, to, func() error {
		_, err := q.ExecContext(ctx, `INSERT INTO reconciliations SELECT f.id, r.period, f.started, f.started, ?, r.material
			FROM copies f, reconciliations r WHERE r.snapshot_id = ?`, findings, from)
		return err
	})
}

// AddTotals records the totals of the open findings (neither resolved nor
// waived) in relation staged (by snapshot, period, severity and currency:
// how many, and their amount), as a reconciliation's.
func AddTotals(ctx context.Context, q readmodel.Querier, staged string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO reconciliation_totals SELECT snapshot_id, period, severity, coalesce(currency, ''),
		count(*) FILTER (WHERE NOT waived), coalesce(sum(amount) FILTER (WHERE NOT waived), 0) FROM `+staged+` WHERE status <> 'resolved' GROUP BY ALL`)
	return err
}
