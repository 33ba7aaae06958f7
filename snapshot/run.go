package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/ingest"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/snapshot/history"
	"github.com/billsnap/billsnap/snapshot/load"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Run is one snapshot being taken. Its rows go to Parquet files in
// staging, and from them into its own DuckDB file (db, in staging too),
// which becomes the read model if the snapshot is complete.
type Run struct {
	s       *Store
	ID      string
	Started time.Time
	db      *sql.DB // the snapshot's DuckDB file, model.duckdb in its staging
	stepDB  *sql.DB // where history's steps run (stepTable), beside the loads; nil when none do
	// committed: the manifest is recorded; the next run finishes what
	// this one does not
	committed bool

	staged *ingest.Staging // the Parquet files being written
	loader *load.Loader
	mu     sync.Mutex
	walks  map[string]extract.Result // by walked (parent) table
	heads  map[string]history.Head   // history's last step of each table when the run began
	steps  map[string]history.Step   // history's step of each table loaded (stepTable)
}

// Meta is what the manifest records about where a snapshot came from.
type Meta struct{ BaseURL, FrontURL string }

// Begin starts a snapshot: it is recorded as running, its tables' columns
// are given their field IDs (assignFieldIDs), the files the read model's
// views read are made where missing (beforeRecords), and its rows go to
// staging until Publish.
func (s *Store) Begin(ctx context.Context, m Meta) (*Run, error) {
	started := s.now().UTC().Truncate(time.Microsecond)
	var id string
	var heads map[string]history.Head
	var behind bool
	err := s.Update(ctx, func(sec *Section) error {
		db := sec.DB()
		var err error
		if id, err = newID(ctx, db, started); err != nil {
			return err
		}
		if heads, err = history.Heads(ctx, db); err != nil {
			return err
		}
		if behind, err = history.Behind(ctx, db, heads); err != nil {
			return err
		}
		_, err = db.ExecContext(ctx, "INSERT INTO snapshots (id, started, status, base_url, front_url) VALUES (?, ?, ?, ?, ?)",
			id, started, StatusRunning, m.BaseURL, m.FrontURL)
		if err == nil {
			s.tables, err = assignFieldIDs(ctx, db, s.tables, id)
		}
		if err == nil {
			// The files the read model's views read are made while the
			// first pages are on their way, not after the walks (the
			// publish makes them where they are still missing).
			err = s.beforeRecords(ctx, sec)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recording the snapshot: %w", err)
	}
	r := &Run{s: s, ID: id, Started: started, walks: map[string]extract.Result{}, heads: heads, steps: map[string]history.Step{}}
	var stepped func(string, []string) error
	if !behind { // else the publish takes the steps of the snapshots before it too (moveHistory)
		stepped = r.stepTable
	}
	if err := r.openDB(ctx, stepped != nil); err != nil {
		return nil, err
	}
	r.loader = load.Start(load.Target{Ctx: ctx, DB: r.db, Snap: id, Tables: s.tables,
		Staged: func(table string) ([]string, int64) { return r.staged.Files(table) }, Loaded: stepped, StepDB: r.stepDB},
		loadSettings(s.duck), s.log)
	r.staged, err = ingest.New(r.stage(), s.tables, ingestSettings(s.pq), ingest.Hooks{
		Filled: r.loader.Filled, Dropped: r.loader.Dropped, Ended: r.loader.Ended,
	})
	if err != nil {
		r.loader.Wait()
		r.closeDB()
		return nil, err
	}
	return r, nil
}

// stage is the run's staging directory.
func (r *Run) stage() string { return r.s.at.Staged(r.ID) }

// dbPath is the run's DuckDB file.
func (r *Run) dbPath() string { return r.s.at.StagedModel(r.ID) }

// openDB creates the run's DuckDB file, a copy of the views' template
// when there is one (views.go), with a latest_ table per table, and,
// when steps is set, the in-memory instance history's steps run in.
func (r *Run) openDB(ctx context.Context, steps bool) error {
	if err := os.MkdirAll(r.stage(), 0o755); err != nil {
		return fmt.Errorf("staging: %w", err)
	}
	copied, err := r.s.model().StartFromTemplate(r.dbPath())
	if err != nil {
		return fmt.Errorf("staging: %w", err)
	}
	db, err := state.OpenFile(r.dbPath(), stateSettings(r.s.duck), 0)
	if err != nil && copied {
		r.s.log.Warn("the views' template does not open; starting without it", "error", err)
		os.Remove(r.dbPath())
		copied = false
		db, err = state.OpenFile(r.dbPath(), stateSettings(r.s.duck), 0)
	}
	if err != nil {
		return err
	}
	// One transaction: one commit of the file's WAL, where a statement
	// each would have its own.
	err = tx(ctx, db, func(t *sql.Tx) error {
		_, err := t.ExecContext(ctx, latestTablesSQL(r.s.tables, loadSettings(r.s.duck), copied))
		return err
	})
	if err != nil {
		db.Close()
		return fmt.Errorf("duckdb schema: %w", err)
	}
	if steps {
		if r.stepDB, err = state.OpenMemory(r.dbPath()+".steps.tmp", stateSettings(r.s.duck)); err != nil {
			db.Close()
			return err
		}
	}
	r.db = db
	return nil
}

// latestTablesSQL makes the latest_ table of each table, anew over those
// of the views' template when replace is set.
func latestTablesSQL(tables []catalog.Table, cfg load.Settings, replace bool) string {
	var b strings.Builder
	for _, t := range tables {
		if replace {
			b.WriteString("DROP TABLE IF EXISTS latest_" + t.Name + "; ")
		}
		b.WriteString(t.CreateSQL("latest_"+t.Name, load.Uncompressed(cfg)...) + "; ")
	}
	return b.String()
}

// closeDB closes the run's DuckDB file, once.
func (r *Run) closeDB() error {
	var err error
	if r.stepDB != nil {
		err = r.stepDB.Close()
		r.stepDB = nil
	}
	if r.db != nil {
		err = errors.Join(r.db.Close(), err)
		r.db = nil
	}
	return err
}

// newID names a snapshot by its start time (2026-11-22T030005Z), with a
// suffix when a snapshot of that second exists already.
func newID(ctx context.Context, db *sql.DB, started time.Time) (string, error) {
	base := started.Format("2006-01-02T150405Z")
	for n := 1; ; n++ {
		id := base
		if n > 1 {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		var exists bool
		if err := db.QueryRowContext(ctx, "SELECT count(*) > 0 FROM snapshots WHERE id = ?", id).Scan(&exists); err != nil {
			return "", err
		}
		if !exists {
			return id, nil
		}
	}
}

// Walked records the walk result of a collection (its parent table). A
// walk that ended was loaded into DuckDB by its sink's End.
func (r *Run) Walked(res extract.Result) {
	r.mu.Lock()
	r.walks[res.Table] = res
	r.mu.Unlock()
}

// Sink is where the walker hands the pages of the collection whose
// records go to table (ingest.Staging.Sink).
func (r *Run) Sink(table string) extract.Sink { return r.staged.Sink(table) }

// Fields is what the last walk of each collection received of each field,
// in the order of the tables and their columns.
func (r *Run) Fields() []manifest.FieldStats { return r.staged.Fields() }

// Fail records the snapshot as failed with msg (which must hold no
// secret), removes its staging, and publishes the read model again (its
// snapshots table says so). It uses its own deadline, so that a cancelled
// run can still record why it stopped. A snapshot whose manifest was
// committed (Publish's point of no return) is left as it is, staging
// included, for the next run to finish (recover).
func (r *Run) Fail(msg string) error {
	if r.committed {
		r.s.log.Warn("the snapshot's publication was cut short; the next run finishes it", "snapshot", r.ID)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.loader.Wait()
	r.staged.Abort()
	r.closeDB()
	r.removeStaging()
	r.s.dropHistory(r.ID)
	return r.s.Update(ctx, func(sec *Section) error {
		if err := setStatus(ctx, sec.DB(), r.ID, StatusFailed, msg, r.s.now); err != nil {
			return err
		}
		return r.s.syncModel(ctx, sec)
	})
}

// tx runs fn in one DuckDB transaction of db.
func tx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	t, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(t); err != nil {
		t.Rollback()
		return err
	}
	return t.Commit()
}

// removeStaging deletes the run's staging, and the staging area when no
// other run's is in it.
func (r *Run) removeStaging() {
	os.RemoveAll(r.stage())
	os.Remove(r.s.at.Staging())
}
