package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/billsnap/billsnap/extract"
)

// Run is one snapshot being taken.
type Run struct {
	s       *Store
	ID      string
	Started time.Time

	mu      sync.Mutex
	writers map[string]*partWriter    // by table
	walks   map[string]extract.Result // by walked (parent) table
	fields  map[string][]FieldStats   // by walked table: what its last walk received
	loader  *loader
}

// Meta is what the manifest records about where a snapshot came from.
type Meta struct{ BaseURL, FrontURL string }

// Begin starts a snapshot: it is recorded as running, and its rows go to
// staging until Publish.
func (s *Store) Begin(ctx context.Context, m Meta) (*Run, error) {
	started := s.now().UTC().Truncate(time.Microsecond)
	id, err := s.newID(ctx, started)
	if err != nil {
		return nil, err
	}
	_, err = s.db.ExecContext(ctx, "INSERT INTO snapshots (id, started, status, base_url, front_url) VALUES (?, ?, ?, ?, ?)",
		id, started, StatusRunning, m.BaseURL, m.FrontURL)
	if err != nil {
		return nil, fmt.Errorf("recording snapshot %s: %w", id, err)
	}
	r := &Run{s: s, ID: id, Started: started, writers: map[string]*partWriter{}, walks: map[string]extract.Result{},
		fields: map[string][]FieldStats{}}
	for _, t := range s.tables {
		r.writers[t.Name] = newPartWriter(t, filepath.Join(s.stagingDir, id, t.Name), s.pq)
		if err := r.writers[t.Name].reset(); err != nil {
			return nil, fmt.Errorf("staging: %w", err)
		}
	}
	r.loader = newLoader(ctx, r)
	for name, w := range r.writers {
		w.filled = func(path string) { r.loader.queue <- loadJob{table: name, file: path} }
		w.drop = func(files []string) { r.loader.queue <- loadJob{table: name, drop: files} }
	}
	return r, nil
}

// newID names a snapshot by its start time (2026-11-22T030005Z), with a
// suffix when a snapshot of that second exists already.
func (s *Store) newID(ctx context.Context, started time.Time) (string, error) {
	base := started.Format("2006-01-02T150405Z")
	for n := 1; ; n++ {
		id := base
		if n > 1 {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		var exists bool
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) > 0 FROM snapshots WHERE id = ?", id).Scan(&exists); err != nil {
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

// fieldsWalked keeps what a walk of the collection table received of each
// field of its tables, in place of an earlier walk's.
func (r *Run) fieldsWalked(table string, fs []FieldStats) {
	r.mu.Lock()
	r.fields[table] = fs
	r.mu.Unlock()
}

// Fields is what the last walk of each collection received of each field,
// in the order of the tables and their columns.
func (r *Run) Fields() []FieldStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []FieldStats
	for _, fs := range r.fields {
		out = append(out, fs...)
	}
	sortFields(out, r.s.tables)
	return out
}

// Fail records the snapshot as failed with msg (which must hold no
// secret), and removes its staging. It uses its own deadline, so that a
// cancelled run can still record why it stopped.
func (r *Run) Fail(msg string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.loader.wait()
	for _, w := range r.writers {
		w.abort()
	}
	r.removeStaging()
	if err := r.s.setStatus(ctx, r.ID, StatusFailed, msg); err != nil {
		return err
	}
	return r.s.deleteRows(ctx, r.ID)
}

// tx runs fn in one DuckDB transaction.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// removeStaging deletes the run's staging, and the staging area when no
// other run's is in it.
func (r *Run) removeStaging() {
	os.RemoveAll(filepath.Join(r.s.stagingDir, r.ID))
	os.Remove(r.s.stagingDir)
}
