package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/snapshot/history"
	"github.com/billsnap/billsnap/snapshot/modelfile"
	"github.com/billsnap/billsnap/snapshot/state"
)

// History (package history) is moved by complete snapshots only, in the
// section that records a snapshot complete (finish): a run takes a
// table's step as soon as the table is loaded (stepTable, called by the
// loader), its files written under the snapshot's name where no view
// reads them yet, lists the steps in its staging (stageHistory), and
// finish records them with the snapshot's status; a snapshot finished
// without them (the first export of a store written before history, or a
// run whose steps do not follow the state's heads) has its steps, and
// those of every complete snapshot kept since the last step, taken in the
// section, from the Parquet tree (catchUp). In the same section the
// files of older steps are packed (packHistory). A snapshot that fails or
// is incomplete has its files removed (dropHistory).

// historyStaging is where a run lists its steps (history.Stage); their
// files are written in history's own folders, under the run's snapshot's
// name, where no view reads them before the state lists the step.
func (r *Run) historyStaging() string { return filepath.Join(r.stage(), "history") }

// stepTable takes the run's step of table, from its staged Parquet files
// (written whole: the loader calls it once a walk has ended and its files
// are loaded; a re-walk may be writing others beside them) and the head
// the run began with, its files written in history's folders. A table
// loaded again after a re-walk is stepped again.
func (r *Run) stepTable(table string, files []string) error {
	t, _ := r.s.table(table)
	conn, err := r.stepDB.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	in := r.s.stepInput(t, r.ID, history.TimeOf(r.Started), r.heads[table], r.s.at.History())
	in.Rows = fmt.Sprintf("SELECT id, _raw FROM read_parquet(%s, hive_partitioning = false)", state.SQLList(files))
	step, err := history.Take(context.Background(), conn, in)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.steps[table] = step
	r.mu.Unlock()
	return nil
}

// stageHistory stages the run's steps, every table's (stepTable, as each
// was loaded), made durable and listed for finish.
func (r *Run) stageHistory() error {
	if len(r.steps) == 0 {
		return nil // history is behind: the publish catches it up
	}
	var steps []history.Step
	for _, t := range r.s.tables {
		step, ok := r.steps[t.Name]
		if !ok {
			return fmt.Errorf("history: table %s was not stepped", t.Name)
		}
		steps = append(steps, step)
	}
	if err := history.Stage(r.historyStaging(), steps); err != nil {
		return err
	}
	crashpoint.Hit("history.staged")
	return nil
}

// stepInput is the input of the step of table t to snapshot id at time
// at from head (none for the base), its files written under root; its
// Rows are id's Parquet in the tree.
func (s *Store) stepInput(t catalog.Table, id string, at time.Time, head history.Head, root string) history.Input {
	in := history.Input{Table: t, To: id, At: at, Root: root,
		Rows: modelfile.ParquetText(filepath.Join(s.partitionDir(t.Name, id), "*.parquet"))}
	if head.Snapshot != "" {
		in.Previous = head.Snapshot
		in.PreviousRows = modelfile.ParquetText(filepath.Join(s.partitionDir(t.Name, head.Snapshot), "*.parquet"))
		in.PreviousIndex = history.File(s.at.History(), history.Current, t.Name, head.Snapshot)
	}
	return in
}

// moveHistory moves history to complete snapshot id in section sec: its
// staged steps (their files in place already) when they follow the
// state's heads, else steps taken here from the tree, of every complete
// snapshot since the heads, oldest first, then of id. Done once: a
// snapshot stepped already is left.
func (s *Store) moveHistory(ctx context.Context, sec *Section, id string) error {
	db := sec.DB()
	if done, err := history.Stepped(ctx, db, id); done || err != nil {
		return err
	}
	heads, err := history.Heads(ctx, db)
	if err != nil {
		return err
	}
	staging := filepath.Join(s.at.Staged(id), "history")
	staged, err := history.Staged(staging)
	if err != nil {
		return err
	}
	if follows(staged, heads, s.tables) {
		for _, st := range staged {
			history.RetireIndexes(s.at.History(), st)
		}
		return history.Record(ctx, db, staged)
	}
	return s.catchUp(ctx, db, id, heads)
}

// follows tells whether staged steps, one a table, each start at the
// head the state has.
func follows(staged []history.Step, heads map[string]history.Head, tables []catalog.Table) bool {
	if len(staged) != len(tables) {
		return false
	}
	for _, st := range staged {
		if st.Previous != heads[st.Table].Snapshot {
			return false
		}
	}
	return true
}

// catchUp takes, in the section's db, the steps of every complete
// snapshot after the heads and of id, oldest first.
func (s *Store) catchUp(ctx context.Context, db *sql.DB, id string, heads map[string]history.Head) error {
	todo, err := s.unstepped(ctx, db, id, heads)
	if err != nil {
		return err
	}
	if len(todo) > 1 {
		s.log.Warn("building history from the snapshots kept", "snapshots", len(todo))
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, snap := range todo {
		var steps []history.Step
		for _, t := range s.tables {
			step, err := history.Take(ctx, conn, s.stepInput(t, snap.id, snap.at, heads[t.Name], s.at.History()))
			if err != nil {
				return err
			}
			steps = append(steps, step)
			heads[t.Name] = history.Head{Snapshot: snap.id, At: snap.at}
		}
		if err := history.Sync(steps); err != nil {
			return err
		}
		for _, st := range steps {
			history.RetireIndexes(s.at.History(), st)
		}
		if err := history.Record(ctx, db, steps); err != nil {
			return err
		}
	}
	return nil
}

type timedSnapshot struct {
	id string
	at time.Time
}

// unstepped lists the complete snapshots after the heads, and id, oldest
// first, each with its time.
func (s *Store) unstepped(ctx context.Context, db *sql.DB, id string, heads map[string]history.Head) ([]timedSnapshot, error) {
	var since time.Time
	for _, h := range heads {
		if h.At.After(since) {
			since = h.At
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT id, started FROM snapshots WHERE (status = 'complete' OR id = ?) AND started > ?
		AND id NOT IN (SELECT snapshot FROM history_steps) ORDER BY started, id`, id, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	parts, err := s.tree.Partitions()
	if err != nil {
		return nil, err
	}
	var out []timedSnapshot
	for rows.Next() {
		var ts timedSnapshot
		if err := rows.Scan(&ts.id, &ts.at); err != nil {
			return nil, err
		}
		ts.at = history.TimeOf(ts.at)
		if ts.id == id || len(parts[ts.id]) > 0 { // not pruned
			out = append(out, ts)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 || out[len(out)-1].id != id {
		return nil, fmt.Errorf("history: snapshot %s is not after the last step of history", id)
	}
	return out, nil
}

// ensureHistoryFolders gives history's folders their empty files, which
// the read model's views read, in section sec.
func (s *Store) ensureHistoryFolders(ctx context.Context, sec *Section) error {
	conn, err := sec.DB().Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return history.EnsureEmpty(ctx, conn, s.at.History(), s.tables)
}

// dropHistory removes the files of history's steps of snapshot id, which
// failed before its steps were recorded.
func (s *Store) dropHistory(id string) {
	history.Remove(s.at.History(), s.tables, id)
}

// packHistory packs the files of history's older steps (history.Plan),
// in section sec: each pack written whole, then listed in the state; the
// files the records of sec's state no longer read (history.Dead: those
// the packs replace, and what a kill left) are removed once they are
// shown. A kill before the section commits leaves history as it was: a
// pack it wrote is listed nowhere, and written again by the next.
func (s *Store) packHistory(ctx context.Context, sec *Section) error {
	db := sec.DB()
	merges, err := history.Plan(ctx, db, s.tables)
	if err != nil {
		return err
	}
	if len(merges) > 0 {
		if err := s.pack(ctx, db, merges); err != nil {
			return err
		}
		crashpoint.Hit("history.packed")
	}
	sec.dead, err = history.Dead(ctx, db, s.at.History(), s.tables)
	return err
}

// pack writes the packs of merges, makes them durable, and lists them in
// the state db.
func (s *Store) pack(ctx context.Context, db *sql.DB, merges []history.Merge) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var dirs []string
	for _, m := range merges {
		files, err := history.Pack(ctx, conn, s.at.History(), m)
		if err != nil {
			return err
		}
		for _, f := range files {
			if d := filepath.Dir(f); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	fileutil.SyncDirs(dirs)
	for _, m := range merges {
		if err := history.Packed(ctx, conn, m); err != nil {
			return err
		}
	}
	return nil
}

// PruneHistory deletes the steps of history taken before before, their
// versions and changes with them, in one section (the read model
// published again), then their files (and a pack none of whose steps is
// left, once the records are shown): history then starts at the oldest
// step kept, exact from there on. A pack some of whose steps are left
// keeps their rows, and the views read only those. A table's last step
// and the one before it are never deleted. It returns the snapshots whose
// steps it deleted.
func (s *Store) PruneHistory(ctx context.Context, before time.Time) ([]string, error) {
	var ids []string
	err := s.Update(ctx, func(sec *Section) error {
		var err error
		if ids, err = history.Prunable(ctx, sec.DB(), before); err != nil || len(ids) == 0 {
			return err
		}
		if err := history.Forget(ctx, sec.DB(), ids); err != nil {
			return err
		}
		if sec.dead, err = history.Dead(ctx, sec.DB(), s.at.History(), s.tables); err != nil {
			return err
		}
		return s.syncModel(ctx, sec)
	})
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		history.Remove(s.at.History(), s.tables, id)
	}
	return ids, nil
}
