package snapshot

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/billsnap/billsnap/internal/crashpoint"
)

// Prune keeps the newest keep complete snapshots and deletes the older
// ones, with the incomplete and failed snapshots older than the oldest one
// kept: their rows in every table (and in also, tables of other packages
// keyed by snapshot_id) in one transaction, after their Parquet
// partitions, which go in one change of the tree.
// The latest complete snapshot is never deleted; keep 0 keeps all.
func (s *Store) Prune(ctx context.Context, keep int, also ...string) ([]string, error) {
	if keep <= 0 {
		return nil, nil
	}
	ids, err := s.prunable(ctx, keep)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	tables := []string{"snapshot_tables", "snapshot_fields"}
	for _, t := range s.tables {
		tables = append(tables, t.Name)
	}
	for _, t := range also {
		if exists, err := s.tableExists(ctx, t); err != nil {
			return nil, err
		} else if exists {
			tables = append(tables, t)
		}
	}
	// Parquet first: a reader of the tree never sees a snapshot DuckDB no
	// longer has, whenever the process dies.
	if err := s.removePartitions(ids); err != nil {
		return nil, err
	}
	crashpoint.Hit("prune.tree")
	err = s.tx(ctx, func(tx *sql.Tx) error {
		for _, t := range tables {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE list_contains(?, snapshot_id)", ids); err != nil {
				return fmt.Errorf("pruning %s: %w", t, err)
			}
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM snapshots WHERE list_contains(?, id)", ids)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// prunable lists the snapshots Prune deletes.
func (s *Store) prunable(ctx context.Context, keep int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `
		WITH kept AS (SELECT id, started FROM snapshots WHERE status = 'complete' ORDER BY started DESC, id DESC LIMIT ?),
		     oldest AS (SELECT min(started) AS started FROM kept)
		SELECT id FROM snapshots, oldest
		WHERE id NOT IN (SELECT id FROM kept) AND status IN ('complete', 'incomplete', 'failed') AND snapshots.started < oldest.started
		ORDER BY snapshots.started`, keep)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (s *Store) tableExists(ctx context.Context, name string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' AND table_name = ?", name).Scan(&n)
	return n > 0, err
}
