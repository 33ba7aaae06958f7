package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Reading is billsnap's state as it was when the reading began, read-only,
// in the store's DuckDB instance (engine): what a reconciliation reads (DB, Bind)
// and where it leaves what it found (Stage), which Keep then records in
// one section of the state. A reading takes no lock and writes nothing to
// the state: the state is replaced by a rename, never written in place,
// so a reading sees one whole state however long it lasts, while other
// billsnaps' sections go on. What the reading staged is written to files
// of its own (runrec.Staged), which Keep moves into the history; Keep
// refuses them (ErrStale) when what the reconciliation compared with has
// changed since.
type Reading struct {
	// VerifyFiles makes Bind check the Parquet files of the snapshots it
	// binds against their manifests first (Store.VerifyFiles), and refuse
	// them (a TamperedError) when one differs: what a reconciliation of a
	// closed period reads must be what was published.
	VerifyFiles bool

	s      *Store
	db     *sql.DB // nil once the reading has ended
	bound  *bound
	staged *runrec.Staged
}

// bound is what Bind read: the snapshots, and the files of the previous
// snapshot's findings.
type bound struct {
	snap, prev string
	prevFiles  []runrec.File
}

// ErrStale is a reconciliation that Keep refuses because the state
// changed while it ran: the snapshot it judged is gone, or the previous
// snapshot's findings, which say what is new, recurring or resolved, are
// not those it read. Running it again gives the right answer.
var ErrStale = errors.New("the store's state changed while the reconciliation read it")

// Read begins a reading of the state. A state that this billsnap has not
// brought up to its schema yet (or none at all) first has a section of
// its own, which does that.
func (s *Store) Read(ctx context.Context) (*Reading, error) {
	r, err := s.read(ctx)
	if err == nil || !errors.Is(err, errNotCurrent) {
		return r, err
	}
	if err := s.Update(ctx, func(*Section) error { return nil }); err != nil {
		return nil, err
	}
	return s.read(ctx)
}

// errNotCurrent is a state that lacks this billsnap's schema.
var errNotCurrent = errors.New("the state is not of this billsnap's schema")

func (s *Store) read(ctx context.Context) (*Reading, error) {
	if _, err := os.Stat(s.at.State()); err != nil {
		return nil, errNotCurrent
	}
	db, err := s.engine.OpenReading(s.at.State())
	if err != nil {
		return nil, fmt.Errorf("billsnap's state: %w", err)
	}
	r := &Reading{s: s, db: db}
	current, err := migrate.Current(ctx, db)
	if err == nil && !current {
		err = errNotCurrent
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// DB is the state, read-only (its tables are the default catalog's).
func (r *Reading) DB() *sql.DB { return r.db }

// Bind makes the views cur.<table> and prev.<table> on conn, a
// connection of DB, show the snapshots cur and prev, and prev.stored_findings
// and cur.stored_rechecks their run records (Store.bind). With
// VerifyFiles, snapshots whose files differ from their manifest are
// refused first.
func (r *Reading) Bind(ctx context.Context, conn *sql.Conn, cur, prev string) error {
	if r.VerifyFiles {
		ids := []string{cur}
		if prev != "" {
			ids = append(ids, prev)
		}
		c, err := r.s.VerifyFiles(ctx, conn, ids)
		if err != nil {
			return fmt.Errorf("checking the Parquet files of snapshot %s: %w", cur, err)
		}
		if err := c.Err(); err != nil {
			return err
		}
	}
	files, err := r.s.bind(ctx, conn, cur, prev)
	if err != nil {
		return err
	}
	r.bound = &bound{snap: cur, prev: prev, prevFiles: files}
	return nil
}

// Stage writes what conn's runrec.StagedFindings and runrec.StagedUnjudged hold (conn
// a connection of DB, bound) to files of their own, with rec, for Keep
// (runrec.Stage).
func (r *Reading) Stage(ctx context.Context, conn *sql.Conn, rec runrec.Reconciliation) error {
	if r.bound == nil || r.bound.snap != rec.Snapshot {
		return fmt.Errorf("staging the findings of snapshot %s, which the reading did not bind", rec.Snapshot)
	}
	r.dropStaged()
	st, err := runrec.Stage(ctx, conn, r.s.at.HistoryStaging(), rec)
	r.staged = st
	return err
}

// dropStaged removes the files Stage wrote that Keep has not moved.
func (r *Reading) dropStaged() {
	if r.staged != nil {
		r.staged.Drop()
		r.staged = nil
	}
}

// Close ends the reading and removes what it staged and Keep did not
// record. Closing it again does nothing.
func (r *Reading) Close() error {
	r.dropStaged()
	return r.end()
}

// end ends the reading's database, once.
func (r *Reading) end() error {
	if r.db == nil {
		return nil
	}
	db := r.db
	r.db = nil
	return r.s.engine.End(context.Background(), db)
}

// Keep ends reading r and records what it staged, in one section of the
// state (runrec.Staged.Keep); the read model is published again. It is
// ErrStale when the state no longer holds what the reconciliation
// compared with.
func (s *Store) Keep(ctx context.Context, r *Reading) error {
	st := r.staged
	if st == nil {
		return errors.New("billsnap's state: the reading staged nothing to keep")
	}
	if err := r.end(); err != nil {
		return err
	}
	return s.UpdateAndPublish(ctx, func(sec *Section) error {
		// One transaction: DuckDB writes its log at each commit.
		tx, err := sec.DB().BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := unchanged(ctx, tx, r.bound); err != nil {
			return err
		}
		if err := st.Keep(ctx, sec.runs, tx); err != nil {
			return err
		}
		r.staged = nil
		crashpoint.Hit("history.kept")
		return tx.Commit()
	})
}

// unchanged checks that the state still holds what a reading bound: the
// snapshot, and the same files of the previous snapshot's findings.
func unchanged(ctx context.Context, conn state.Querier, b *bound) error {
	var status string
	err := conn.QueryRowContext(ctx, "SELECT status FROM snapshots WHERE id = ?", b.snap).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && status != StatusComplete && status != StatusIncomplete) {
		return fmt.Errorf("%w: snapshot %s is no longer there to reconcile", ErrStale, b.snap)
	}
	if err != nil {
		return err
	}
	files, err := runrec.List(ctx, conn, "kind = ? AND snapshot_id = ?", runrec.Findings.Name, b.prev)
	if err != nil {
		return err
	}
	if len(files) != len(b.prevFiles) {
		return fmt.Errorf("%w: snapshot %s's findings were stored again", ErrStale, b.prev)
	}
	for i := range files {
		if files[i] != b.prevFiles[i] {
			return fmt.Errorf("%w: snapshot %s's findings were stored again", ErrStale, b.prev)
		}
	}
	return nil
}
