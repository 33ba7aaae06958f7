package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// recover finishes what an interrupted run left, with the lock held: a
// snapshot stopped while walking is marked failed and its staging removed;
// one stopped while its Parquet was being published (its DuckDB side
// committed) is rolled forward; partitions of no complete snapshot are
// taken out of the Parquet tree, and generations of it that a run left
// half built are removed.
func (s *Store) recover(ctx context.Context) error {
	unfinished, err := s.snapshotsWith(ctx, StatusRunning, StatusPublishing)
	if err != nil {
		return err
	}
	for id, status := range unfinished {
		if status == StatusPublishing {
			err = s.rollForward(ctx, id)
		} else {
			s.log.Warn("a run was interrupted before publishing; its snapshot is marked failed", "snapshot", id)
			err = s.failInterrupted(ctx, id, "interrupted before it was published")
		}
		if err != nil {
			return err
		}
	}
	if err := os.RemoveAll(s.stagingDir); err != nil {
		return fmt.Errorf("removing staging: %w", err)
	}
	if err := s.tree.renameOldPartitions(); err != nil {
		return err
	}
	if err := s.removeStrayPartitions(ctx); err != nil {
		return err
	}
	cur, err := s.tree.current()
	if err == nil {
		s.tree.removeOthers(cur)
	}
	return err
}

// rollForward finishes publishing snapshot id: its Parquet goes into the
// tree from staging, unless the tree has it already.
func (s *Store) rollForward(ctx context.Context, id string) error {
	staged, _ := filepath.Glob(filepath.Join(s.stagingDir, id, "*"))
	parts, err := s.tree.partitions()
	if err != nil {
		return err
	}
	if len(staged) == 0 && len(parts[id]) == 0 {
		s.log.Warn("an interrupted snapshot lost its staged Parquet before it was published; it is marked failed", "snapshot", id)
		return s.failInterrupted(ctx, id, "interrupted while publishing, and its staged Parquet is gone")
	}
	s.log.Warn("finishing the publication of an interrupted snapshot", "snapshot", id)
	if err := s.publishParquet(id); err != nil {
		return err
	}
	return s.setStatus(ctx, id, StatusComplete, "")
}

// failInterrupted records snapshot id failed with why and deletes its rows.
func (s *Store) failInterrupted(ctx context.Context, id, why string) error {
	if err := s.setStatus(ctx, id, StatusFailed, why); err != nil {
		return err
	}
	return s.deleteRows(ctx, id)
}

// snapshotsWith returns the snapshots in the given statuses.
func (s *Store) snapshotsWith(ctx context.Context, statuses ...string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, status FROM snapshots WHERE list_contains(?, status)", statuses)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, st string
		if err := rows.Scan(&id, &st); err != nil {
			return nil, err
		}
		out[id] = st
	}
	return out, rows.Err()
}

// removeStrayPartitions takes the partitions of snapshots that are not
// complete out of the Parquet tree: nothing but complete snapshots stays
// where readers look.
func (s *Store) removeStrayPartitions(ctx context.Context) error {
	complete, err := s.snapshotsWith(ctx, StatusComplete)
	if err != nil {
		return err
	}
	parts, err := s.tree.partitions()
	if err != nil {
		return err
	}
	var stray []string
	for id := range parts {
		if complete[id] == "" {
			s.log.Warn("removing Parquet of a snapshot that is not complete", "snapshot", id)
			stray = append(stray, id)
		}
	}
	return s.removePartitions(stray)
}

// removePartitions takes the snapshots ids out of the Parquet tree, in one
// change of it.
func (s *Store) removePartitions(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.tree.change(func(next string) error {
		for _, id := range ids {
			dirs, _ := filepath.Glob(filepath.Join(next, "*", partition(id)))
			for _, d := range dirs {
				if err := os.RemoveAll(d); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// publishParquet puts the staged tables of snapshot id into the Parquet
// tree, in one change of it; tables the tree has already are left alone.
func (s *Store) publishParquet(id string) error {
	staged, _ := filepath.Glob(filepath.Join(s.stagingDir, id, "*"))
	parts, err := s.tree.partitions()
	if err != nil {
		return err
	}
	var todo []string
	for _, src := range staged {
		if !slices.Contains(parts[id], filepath.Base(src)) {
			todo = append(todo, src)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	err = s.tree.change(func(next string) error {
		for _, src := range todo {
			if err := linkTree(src, filepath.Join(next, filepath.Base(src), partition(id))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("publishing the Parquet of snapshot %s: %w", id, err)
	}
	return nil
}

// syncDir makes a rename in dir durable; failures only cost durability.
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}

// setStatus records a snapshot's status, its end time and error.
func (s *Store) setStatus(ctx context.Context, id, status, errMsg string) error {
	_, err := s.db.ExecContext(ctx, "UPDATE snapshots SET status = ?, finished = ?, error = nullif(?, '') WHERE id = ?",
		status, s.now().UTC(), errMsg, id)
	if err != nil {
		return fmt.Errorf("snapshot %s: recording status %s: %w", id, status, err)
	}
	return nil
}

// deleteRows removes every row of snapshot id from the snapshot's tables.
func (s *Store) deleteRows(ctx context.Context, id string) error {
	for _, t := range s.tables {
		if _, err := s.db.ExecContext(ctx, "DELETE FROM "+t.Name+" WHERE snapshot_id = ?", id); err != nil {
			return fmt.Errorf("removing the rows of snapshot %s from %s: %w", id, t.Name, err)
		}
	}
	return nil
}

// partitionDir is where readers find a table's Parquet of snapshot id.
func (s *Store) partitionDir(table, id string) string {
	return filepath.Join(s.parquetDir, table, partition(id))
}
