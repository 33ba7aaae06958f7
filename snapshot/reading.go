package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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
// of its own, which Keep moves into the history; Keep refuses them
// (ErrStale) when what the reconciliation compared with has changed
// since.
type Reading struct {
	s      *Store
	db     *sql.DB // nil once the reading has ended
	bound  *bound
	staged *staged
}

// bound is what Bind read: the snapshots, and the files of the previous
// snapshot's findings.
type bound struct {
	snap, prev string
	prevFiles  []runrec.File
}

// staged is what Stage wrote: a file of each kind, and the
// reconciliation's row and totals.
type staged struct {
	rec    Reconciliation
	totals []total
	files  []stagedFile
}

// stagedFile is a file of run records written outside a section.
type stagedFile struct {
	kind runrec.Kind
	path string
	rows int64
}

// Reconciliation is what one reconciliation records beside its findings:
// which snapshot and period it judged, as of when, when it ran, how many
// findings are open and whether any is material.
type Reconciliation struct {
	Snapshot, Period string
	AsOf, At         time.Time
	Open             int
	Material         bool
}

// total is a row of reconciliation_totals: the open findings of one
// severity and currency, and their amount not waived.
type total struct {
	severity, currency string
	findings           int64
	amount             string
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
// and cur.stored_rechecks their run records (Store.bind).
func (r *Reading) Bind(ctx context.Context, conn *sql.Conn, cur, prev string) error {
	files, err := r.s.bind(ctx, conn, cur, prev)
	if err != nil {
		return err
	}
	r.bound = &bound{snap: cur, prev: prev, prevFiles: files}
	return nil
}

// Stage writes what conn's StagedFindings and StagedUnjudged hold (conn
// a connection of DB, bound) to files of their own, with rec, for Keep.
func (r *Reading) Stage(ctx context.Context, conn *sql.Conn, rec Reconciliation) error {
	if r.bound == nil || r.bound.snap != rec.Snapshot {
		return fmt.Errorf("staging the findings of snapshot %s, which the reading did not bind", rec.Snapshot)
	}
	r.dropStaged()
	totals, err := totalsOf(ctx, conn)
	if err != nil {
		return err
	}
	st := &staged{rec: rec, totals: totals}
	r.staged = st
	dir := r.s.at.HistoryStaging()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	for _, k := range []struct {
		kind  runrec.Kind
		table string
	}{{runrec.Findings, StagedFindings}, {runrec.Unjudged, StagedUnjudged}} {
		f := stagedFile{kind: k.kind, path: filepath.Join(dir, fmt.Sprintf("%s.%d.%d.parquet", k.kind.Name, os.Getpid(), time.Now().UnixNano()))}
		st.files = append(st.files, f)
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+k.table).Scan(&st.files[len(st.files)-1].rows); err != nil {
			return err
		}
		if err := state.CopyTo(ctx, conn, fmt.Sprintf("SELECT * FROM %s ORDER BY ALL", k.table), f.path); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	crashpoint.Hit("history.staged")
	return nil
}

// totalsOf is what conn's StagedFindings give reconciliation_totals.
func totalsOf(ctx context.Context, conn *sql.Conn) ([]total, error) {
	rows, err := conn.QueryContext(ctx, `SELECT severity, coalesce(currency, ''), count(*),
		CAST(coalesce(sum(amount) FILTER (WHERE NOT waived), 0) AS VARCHAR)
		FROM `+StagedFindings+` WHERE status <> 'resolved' GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []total
	for rows.Next() {
		var t total
		if err := rows.Scan(&t.severity, &t.currency, &t.findings, &t.amount); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// dropStaged removes the files Stage wrote that Keep has not moved.
func (r *Reading) dropStaged() {
	if r.staged == nil {
		return
	}
	for _, f := range r.staged.files {
		os.Remove(f.path)
		os.Remove(f.path + ".tmp")
	}
	r.staged = nil
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
// state: its files become the run records of its snapshot and period, in
// place of an earlier reconciliation's, with its row of reconciliations
// and its totals; the read model is published again. It is ErrStale when
// the state no longer holds what the reconciliation compared with.
func (s *Store) Keep(ctx context.Context, r *Reading) error {
	st := r.staged
	if st == nil {
		return errors.New("billsnap's state: the reading staged nothing to keep")
	}
	if err := r.end(); err != nil {
		return err
	}
	return s.Change(ctx, func(sec *Section) error {
		// One transaction: DuckDB writes its log at each commit.
		tx, err := sec.DB().BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := s.keepStaged(ctx, sec, tx, r.bound, st); err != nil {
			return err
		}
		r.staged = nil
		crashpoint.Hit("history.kept")
		return tx.Commit()
	})
}

// keepStaged records st, staged by a reading that bound b, on tx, in
// section sec.
func (s *Store) keepStaged(ctx context.Context, sec *Section, tx *sql.Tx, b *bound, st *staged) error {
	if err := s.unchanged(ctx, tx, b); err != nil {
		return err
	}
	period := sql.NullString{String: st.rec.Period, Valid: true}
	for _, f := range st.files {
		if err := sec.runs.Retire(ctx, tx, "kind = ? AND snapshot_id = ? AND period = ?", f.kind.Name, st.rec.Snapshot, st.rec.Period); err != nil {
			return err
		}
		if err := s.takeStaged(ctx, sec, tx, f, st.rec.Snapshot, period); err != nil {
			return err
		}
	}
	return recordReconciliation(ctx, tx, st.rec, st.totals)
}

// unchanged checks that the state still holds what a reading bound: the
// snapshot, and the same files of the previous snapshot's findings.
func (s *Store) unchanged(ctx context.Context, conn state.Querier, b *bound) error {
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

// takeStaged moves staged file f into the history as a new run file of its
// kind and snapshot, and indexes it.
func (s *Store) takeStaged(ctx context.Context, sec *Section, q state.Querier, f stagedFile, snap string, period sql.NullString) error {
	return sec.runs.Add(ctx, q, runrec.File{Kind: f.kind.Name, Snapshot: snap}, period, f.rows, func(path string) error {
		return os.Rename(f.path, path)
	})
}

// stagingAge is how old a staged file is (by the wall clock, which sets
// its time, not the store's) before a section takes it for the leftover
// of a reconciliation that was killed, though another process of its
// number runs (a number used again): a reading stages its files just
// before it keeps them.
const stagingAge = time.Hour

// sweepLeftovers removes what ended processes left: the files they
// staged (their names give the process: <kind>.<pid>.<nanoseconds>.parquet),
// and other processes' older than stagingAge, and the folders their
// DuckDB instances spilled to (<pid>.<n>).
func (s *Store) sweepLeftovers() {
	for _, d := range []struct {
		dir   string
		field int
	}{{s.at.HistoryStaging(), 1}, {s.at.StateTemp(), 0}} {
		entries, _ := os.ReadDir(d.dir)
		for _, e := range entries {
			info, err := e.Info()
			if err != nil {
				continue
			}
			pid := pidIn(e.Name(), d.field)
			stale := d.field == 1 && pid != os.Getpid() && time.Since(info.ModTime()) > stagingAge
			if stale || !state.ProcessRuns(pid) {
				os.RemoveAll(filepath.Join(d.dir, e.Name()))
			}
		}
	}
}

// pidIn is the process ID that field i of a name of dot-separated fields
// gives, 0 for none.
func pidIn(name string, i int) int {
	parts := strings.Split(name, ".")
	if len(parts) <= i {
		return 0
	}
	pid, _ := strconv.Atoi(parts[i])
	return pid
}

// recordReconciliation records rec and its totals in place of an earlier
// reconciliation's of the same snapshot and period.
func recordReconciliation(ctx context.Context, q state.Querier, rec Reconciliation, totals []total) error {
	type stmt struct {
		q    string
		args []any
	}
	stmts := []stmt{
		{"DELETE FROM reconciliations WHERE snapshot_id = ? AND period = ?", []any{rec.Snapshot, rec.Period}},
		{"INSERT INTO reconciliations VALUES (?, ?, ?, ?, ?, ?)", []any{rec.Snapshot, rec.Period, rec.AsOf.UTC(), rec.At.UTC(), rec.Open, rec.Material}},
		{"DELETE FROM reconciliation_totals WHERE snapshot_id = ? AND period = ?", []any{rec.Snapshot, rec.Period}},
	}
	for _, t := range totals {
		stmts = append(stmts, stmt{"INSERT INTO reconciliation_totals VALUES (?, ?, ?, ?, ?, CAST(? AS DECIMAL(18,2)))",
			[]any{rec.Snapshot, rec.Period, t.severity, t.currency, t.findings, t.amount}})
	}
	for _, st := range stmts {
		if _, err := q.ExecContext(ctx, st.q, st.args...); err != nil {
			return err
		}
	}
	return nil
}
