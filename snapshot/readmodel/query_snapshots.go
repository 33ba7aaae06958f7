package readmodel

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Snapshot is one row of the snapshots manifest.
type Snapshot struct {
	ID, Status string
	Started    time.Time
	Finished   time.Time // zero while it has not finished (Snapshots), its start then (ByID)
}

func scanSnapshot(rows *sql.Rows) (Snapshot, error) {
	var s Snapshot
	var fin sql.NullTime
	err := rows.Scan(&s.ID, &s.Status, &s.Started, &fin)
	s.Finished = fin.Time
	return s, err
}

// Snapshots are the snapshots, newest first (by start, then ID); n > 0
// keeps the newest n.
func Snapshots(ctx context.Context, q Querier, n int) ([]Snapshot, error) {
	query, args := "SELECT id, status, started, finished FROM snapshots ORDER BY started DESC, id DESC", []any{}
	if n > 0 {
		query, args = query+" LIMIT ?", append(args, n)
	}
	return collect(ctx, q, scanSnapshot, query, args...)
}

// ByID is snapshot id, its finish its start while it has none; it is
// sql.ErrNoRows when there is no such snapshot.
func ByID(ctx context.Context, q Querier, id string) (Snapshot, error) {
	var s Snapshot
	err := q.QueryRowContext(ctx, "SELECT id, status, started, coalesce(finished, started) FROM snapshots WHERE id = ?", id).
		Scan(&s.ID, &s.Status, &s.Started, &s.Finished)
	return s, err
}

// Latest is the latest complete snapshot (the view latest_snapshot); it
// is sql.ErrNoRows when there is none.
func Latest(ctx context.Context, q Querier) (Snapshot, error) {
	var s Snapshot
	err := q.QueryRowContext(ctx, "SELECT id, status, started, finished FROM latest_snapshot").
		Scan(&s.ID, &s.Status, &s.Started, &s.Finished)
	return s, err
}

// PreviousComplete is the ID of the complete snapshot before s (by start,
// then ID); "" when there is none.
func PreviousComplete(ctx context.Context, q Querier, s Snapshot) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT id FROM snapshots WHERE status = 'complete' AND (started < ? OR (started = ? AND id < ?))
		ORDER BY started DESC, id DESC LIMIT 1`, s.Started, s.Started, s.ID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// CompleteIDs are the IDs of the complete snapshots, oldest first.
func CompleteIDs(ctx context.Context, q Querier) ([]string, error) {
	return collect(ctx, q, scanString, "SELECT id FROM snapshots WHERE status = 'complete' ORDER BY started, id")
}

// OldestComplete is when the oldest complete snapshot started; the zero
// time when there is none.
func OldestComplete(ctx context.Context, q Querier) (time.Time, error) {
	var oldest sql.NullTime
	err := q.QueryRowContext(ctx, "SELECT min(started) FROM snapshots WHERE status = 'complete'").Scan(&oldest)
	return oldest.Time, err
}

// LastComplete is the complete snapshot that finished last and when it
// finished; "" when there is none.
func LastComplete(ctx context.Context, q Querier) (string, time.Time, error) {
	var id string
	var at time.Time
	err := q.QueryRowContext(ctx, "SELECT id, finished FROM snapshots WHERE status = 'complete' ORDER BY finished DESC LIMIT 1").Scan(&id, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, nil
	}
	return id, at, err
}

// Manifested tells whether snapshot id has its manifest in the read model
// (a snapshot still running has none yet).
func Manifested(ctx context.Context, q Querier, id string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM snapshots WHERE id = ? AND status <> 'running'", id).Scan(&n)
	return n > 0, err
}

// UntypedColumn is a column of a snapshot where values arrived untyped.
type UntypedColumn struct {
	Snapshot, Table, Column, Field string
	List                           bool // a nested list (Column names its table)
}

// UntypedColumns are the columns where values arrived untyped in the
// snapshots a reconciliation's session variables snapshot_id and
// previous_snapshot_id name, as their manifests say, in order.
func UntypedColumns(ctx context.Context, q Querier) ([]UntypedColumn, error) {
	return collect(ctx, q, func(rows *sql.Rows) (UntypedColumn, error) {
		var u UntypedColumn
		err := rows.Scan(&u.Snapshot, &u.Table, &u.Column, &u.Field, &u.List)
		return u, err
	}, `SELECT DISTINCT snapshot_id, table_name, column_name, field, kind = 'list' FROM snapshot_fields
		WHERE untyped > 0 AND column_name IS NOT NULL
		  AND snapshot_id IN (getvariable('snapshot_id'), getvariable('previous_snapshot_id'))
		ORDER BY ALL`)
}

// SnapshotStarts gives when each snapshot in q began, by its ID.
func SnapshotStarts(ctx context.Context, q Querier) (map[string]time.Time, error) {
	snaps, err := Snapshots(ctx, q, 0)
	started := make(map[string]time.Time, len(snaps))
	for _, sn := range snaps {
		started[sn.ID] = sn.Started
	}
	return started, err
}
