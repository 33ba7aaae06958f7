package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// Prune keeps the newest keep complete snapshots and deletes the older
// ones, with the incomplete and failed snapshots older than the oldest one
// kept: their rows in every table of the state keyed by snapshot_id and
// their run records, in one transaction, and the read model published
// again; then, once the state has committed, their Parquet partitions,
// their run records' files and their files of the manifest. So the records never list a snapshot whose Parquet
// is gone; partitions a kill leaves behind are removed by the next start
// (recover). The latest complete snapshot is never deleted, nor any of
// protected (the snapshots a close's evidence names); keep 0 keeps all.
// History (package history) is not pruned here: it keeps every version
// of the snapshots pruned (PruneHistory prunes it by age).
func (s *Store) Prune(ctx context.Context, keep int, protected ...string) ([]string, error) {
	if keep <= 0 {
		return nil, nil
	}
	var ids []string
	err := s.Update(ctx, func(sec *Section) error {
		db := sec.DB()
		var err error
		if ids, err = prunable(ctx, db, keep, protected); err != nil || len(ids) == 0 {
			return err
		}
		if err := s.markPruning(); err != nil {
			return err
		}
		if err := sec.runs.Retire(ctx, db, "list_contains(?, snapshot_id)", ids); err != nil {
			return err
		}
		if err := deleteSnapshots(ctx, db, ids); err != nil {
			return err
		}
		return s.syncModel(ctx, sec)
	})
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	crashpoint.Hit("prune.committed")
	for _, tr := range []tree.Tree{s.tree, s.incomplete} {
		if err := tr.Remove(ids); err != nil {
			return ids, err
		}
	}
	s.recs.RemoveSnapshotRecords(ids, false)
	return ids, os.Remove(s.at.PrunePending())
}

func (s *Store) markPruning() error {
	if err := os.WriteFile(s.at.PrunePending(), nil, 0o644); err != nil {
		return err
	}
	fileutil.SyncDir(s.at.Private())
	return nil
}

// deleteSnapshots deletes snapshots ids from every table of db keyed by
// snapshot_id, and from the manifest, in one transaction.
func deleteSnapshots(ctx context.Context, db *sql.DB, ids []string) error {
	tables, err := state.Strings(ctx, db, `SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_catalog, table_schema, table_name)
		WHERE c.table_catalog = ? AND c.table_schema = 'main' AND c.column_name = 'snapshot_id' AND t.table_type = 'BASE TABLE' ORDER BY c.table_name`, state.AttachedAs)
	if err != nil {
		return err
	}
	return tx(ctx, db, func(tx *sql.Tx) error {
		for _, t := range tables {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE list_contains(?, snapshot_id)", ids); err != nil {
				return fmt.Errorf("pruning %s: %w", t, err)
			}
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM snapshots WHERE list_contains(?, id)", ids)
		return err
	})
}

// prunable lists the snapshots Prune deletes.
func prunable(ctx context.Context, db *sql.DB, keep int, protected []string) ([]string, error) {
	return state.Strings(ctx, db, `
		WITH kept AS (SELECT id, started FROM snapshots WHERE status = 'complete' ORDER BY started DESC, id DESC LIMIT ?),
		     oldest AS (SELECT min(started) AS started FROM kept)
		SELECT id FROM snapshots, oldest
		WHERE id NOT IN (SELECT id FROM kept) AND status IN ('complete', 'incomplete', 'failed') AND snapshots.started < oldest.started
			AND NOT list_contains(?::VARCHAR[], id)
		ORDER BY snapshots.started`, keep, append([]string{}, protected...))
}
