package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// recover finishes what an interrupted run left, with the lock held: a
// snapshot stopped while walking is marked failed and its staging removed;
// one stopped while its Parquet was renamed into place (its DuckDB side
// committed) is rolled forward; staging and Parquet partitions of no
// published snapshot are removed.
func (s *Store) recover(ctx context.Context) error {
	unfinished, err := s.snapshotsWith(ctx, StatusRunning, StatusPublishing)
	if err != nil {
		return err
	}
	for id, status := range unfinished {
		if status == StatusPublishing {
			s.log.Warn("finishing the publication of an interrupted snapshot", "snapshot", id)
			if err := s.publishParquet(id); err != nil {
				return err
			}
			if err := s.setStatus(ctx, id, StatusComplete, ""); err != nil {
				return err
			}
			continue
		}
		s.log.Warn("a run was interrupted before publishing; its snapshot is marked failed", "snapshot", id)
		if err := s.setStatus(ctx, id, StatusFailed, "interrupted before it was published"); err != nil {
			return err
		}
		if err := s.deleteRows(ctx, id); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(s.stagingDir); err != nil {
		return fmt.Errorf("removing staging: %w", err)
	}
	return s.removeStrayPartitions(ctx)
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

// removeStrayPartitions deletes Parquet partitions whose snapshot is not
// complete: nothing but complete snapshots stays where readers look.
func (s *Store) removeStrayPartitions(ctx context.Context) error {
	complete, err := s.snapshotsWith(ctx, StatusComplete)
	if err != nil {
		return err
	}
	dirs, _ := filepath.Glob(filepath.Join(s.parquetDir, "*", "snapshot=*"))
	for _, d := range dirs {
		if id := strings.TrimPrefix(filepath.Base(d), "snapshot="); complete[id] == "" {
			s.log.Warn("removing Parquet of a snapshot that is not complete", "dir", d)
			if err := os.RemoveAll(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// publishParquet renames the staged table directories of snapshot id into
// the Parquet tree; a table already in place is left as it is.
func (s *Store) publishParquet(id string) error {
	staged, _ := filepath.Glob(filepath.Join(s.stagingDir, id, "*"))
	for _, src := range staged {
		table := filepath.Base(src)
		dst := s.partitionDir(table, id)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Rename(src, dst); err != nil {
			return fmt.Errorf("publishing Parquet of %s: %w", table, err)
		}
		syncDir(filepath.Dir(dst))
	}
	return nil
}

// partitionDir is where a table's Parquet of snapshot id is published.
func (s *Store) partitionDir(table, id string) string {
	return filepath.Join(s.parquetDir, table, "snapshot="+id)
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
	for _, t := range Tables {
		if _, err := s.db.ExecContext(ctx, "DELETE FROM "+t.Name+" WHERE snapshot_id = ?", id); err != nil {
			return fmt.Errorf("removing the rows of snapshot %s from %s: %w", id, t.Name, err)
		}
	}
	return nil
}
