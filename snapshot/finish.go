package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// A snapshot whose manifest is recorded (Publish's point of no return) is
// finished here: by the run that recorded it (Publish), or by the next
// Open after a crash (recover), which also cleans up what else an
// interrupted run left.

// finish publishes snapshot id, recorded as status (publishing or
// incomplete), and returns its status now. A complete snapshot's Parquet
// goes into the tree, it moves history (moveHistory), history's older
// steps are packed (packHistory), it is recorded complete, and the read
// model is
// built from its DuckDB file in staging (or from its Parquet when that is
// gone). An incomplete one's Parquet goes into the incomplete tree, and
// the read model is published again. Each step is done once however often
// finish is called: a crash at any point is finished by the next run
// (recover).
func (s *Store) finish(ctx context.Context, sec *Section, id, status string) (string, error) {
	if status == StatusIncomplete {
		s.dropHistory(id) // only a complete snapshot moves history
		if err := s.publishParquet(s.incomplete, id); err != nil {
			return status, err
		}
		return status, s.syncModel(ctx, sec)
	}
	if err := s.publishParquet(s.tree, id); err != nil {
		return status, err
	}
	if err := s.moveHistory(ctx, sec, id); err != nil {
		return status, err
	}
	crashpoint.Hit("publish.history")
	if err := s.packHistory(ctx, sec); err != nil {
		return status, err
	}
	if err := setStatus(ctx, sec.DB(), id, StatusComplete, "", s.now); err != nil {
		return status, err
	}
	crashpoint.Hit("publish.complete")
	return StatusComplete, s.syncModel(ctx, sec)
}

// recover finishes what an interrupted run left, with the export lock
// held, in section sec of the state: a snapshot stopped while walking is
// marked failed; one stopped while publishing (its manifest recorded:
// publishing, or incomplete with its staging still there) is published;
// staging is removed; after a prune cut short, partitions of no snapshot
// of their kind are taken out of the Parquet trees, and files of the
// manifest of no snapshot removed (removeStrays); the read model is
// brought up to the state and published, unless the store has never
// published anything and has nothing to (unpublished).
func (s *Store) recover(ctx context.Context, sec *Section) error {
	db := sec.DB()
	unfinished, err := snapshotsWith(ctx, db, StatusRunning, StatusPublishing, StatusIncomplete)
	if err != nil {
		return err
	}
	for id, status := range unfinished {
		if _, err := os.Stat(s.at.Staged(id)); status == StatusIncomplete && err != nil {
			delete(unfinished, id) // published
			continue
		}
		if status != StatusRunning {
			s.log.Warn("finishing the publication of an interrupted snapshot", "snapshot", id)
			_, err = s.finish(ctx, sec, id, status)
		} else {
			s.log.Warn("a run was interrupted before publishing; its snapshot is marked failed", "snapshot", id)
			err = setStatus(ctx, db, id, StatusFailed, "interrupted before it was published", s.now)
			s.dropHistory(id)
		}
		if err != nil {
			return err
		}
	}
	if err := os.RemoveAll(s.at.Staging()); err != nil {
		return fmt.Errorf("removing staging: %w", err)
	}
	s.removeReadingCopies()
	if err := migrate.RenameOldPartitions(s.tree); err != nil {
		return err
	}
	for _, tr := range []tree.Tree{s.tree, s.incomplete} {
		cur, err := tr.Current()
		if err != nil {
			return err
		}
		tr.RemoveOthers(cur) // generations an earlier billsnap left half built, what a removal left
	}
	if err := s.removeStrays(ctx, db); err != nil {
		return err
	}
	_, noModel := os.Stat(s.publicPath)
	_, noRecords := os.Lstat(s.recs.Link())
	if noModel == nil && noRecords == nil && len(unfinished) == 0 {
		return nil
	}
	if fresh, err := s.unpublished(ctx, db); fresh || err != nil {
		return err
	}
	return s.syncModel(ctx, sec)
}

// unpublished tells whether the store has never published anything and
// has nothing to publish: no snapshot on record, no read model and no
// records. Its read model is made by its first
// publish (or failure); until then readers find no store (ErrNoStore),
// which is what there is.
func (s *Store) unpublished(ctx context.Context, db *sql.DB) (bool, error) {
	if exists(s.publicPath) || exists(s.recs.Link()) {
		return false, nil
	}
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM snapshots").Scan(&n)
	return n == 0, err
}

// removeStrays removes, when a prune was cut short (its marker is
// there), the partitions and manifest files of snapshots the state does
// not have in their status: nothing but complete snapshots stays where
// readers look for them, and incomplete ones where they look for those.
// Without the marker there are none to look for: a publish cut short is
// finished, not undone.
func (s *Store) removeStrays(ctx context.Context, db *sql.DB) error {
	if _, err := os.Stat(s.at.PrunePending()); err != nil {
		return nil
	}
	for _, kind := range []struct {
		tr     tree.Tree
		status string
	}{{s.tree, StatusComplete}, {s.incomplete, StatusIncomplete}} {
		if err := s.removeStrayPartitions(ctx, db, kind.tr, kind.status); err != nil {
			return err
		}
	}
	known, err := state.Strings(ctx, db, "SELECT id FROM snapshots")
	if err != nil {
		return err
	}
	s.recs.RemoveSnapshotRecords(known, true)
	return os.Remove(s.at.PrunePending())
}

// snapshotsWith returns the snapshots in the given statuses.
func snapshotsWith(ctx context.Context, db *sql.DB, statuses ...string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT id, status FROM snapshots WHERE list_contains(?, status)", statuses)
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

// removeStrayPartitions takes the partitions of snapshots that are not in
// status out of tree tr: nothing but complete snapshots stays where readers
// look for them, and incomplete ones where they look for those.
func (s *Store) removeStrayPartitions(ctx context.Context, db *sql.DB, tr tree.Tree, status string) error {
	keep, err := snapshotsWith(ctx, db, status)
	if err != nil {
		return err
	}
	parts, err := tr.Partitions()
	if err != nil {
		return err
	}
	var stray []string
	for id := range parts {
		if keep[id] == "" {
			s.log.Warn("removing Parquet of a snapshot that is not "+status, "snapshot", id, "tree", tr.Link)
			stray = append(stray, id)
		}
	}
	return tr.Remove(stray)
}

// publishParquet moves the staged tables of snapshot id into tree tr,
// each as its partition; tables the tree has already are left alone.
func (s *Store) publishParquet(tr tree.Tree, id string) error {
	staged, _ := filepath.Glob(filepath.Join(s.at.Staged(id), "*"))
	staged = slices.DeleteFunc(staged, func(p string) bool {
		_, isTable := s.table(filepath.Base(p))
		return !isTable
	})
	parts, err := tr.Partitions()
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
		if len(parts[id]) == 0 {
			return fmt.Errorf("publishing the Parquet of snapshot %s: its staged files are gone", id)
		}
		return nil
	}
	err = tr.Add(id, todo)
	if err != nil {
		return fmt.Errorf("publishing the Parquet of snapshot %s: %w", id, err)
	}
	return nil
}

// setStatus records a snapshot's status, its end time and error in db,
// the state.
func setStatus(ctx context.Context, db *sql.DB, id, status, errMsg string, now func() time.Time) error {
	_, err := db.ExecContext(ctx, "UPDATE snapshots SET status = ?, finished = ?, error = nullif(?, '') WHERE id = ?",
		status, now().UTC(), errMsg, id)
	if err != nil {
		return fmt.Errorf("snapshot %s: recording status %s: %w", id, status, err)
	}
	return nil
}
