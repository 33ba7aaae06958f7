// Package runrec is the records of a store: the run records, and the
// records readers see.
//
// # Run records
//
// What one reconciliation found (findings, unjudged) and what one recheck
// found (rechecks) is a Parquet file per run, written once under
// DIR/.billsnap/history/<kind>/ and indexed in the state (the table
// run_files). A [Changes] is a section's part of them: the files it adds
// and retires, the retired ones deleted when it commits. [Files.Sweep]
// removes what an aborted section left; [Files.Bind] makes the views
// reconcile reads over the files of the snapshots it compares.
//
// A reconciliation stages what it found outside a section ([Stage], a
// [Staged] with its [Reconciliation] row and totals), and a section keeps
// it ([Staged.Keep]). Callers fill the staging tables that [StageTables]
// makes ([StagedFindings], [StagedUnjudged], [StagedRechecks]). [Plain] is
// a database that is not a store's state, which keeps the same in tables:
// reconcile's fixtures.
//
// # Records readers see
//
// [Records] are billsnap's tables, each snapshot's manifest file, the
// journal's runs and the run records, written at each publish into a
// generation of their own under DIR/records (generation.go:
// [Records.Build], [Records.Show], [Drop]). The store shows the new
// generation when a section commits; [Records.Views] are the read model's
// views of them.
//
// The upgrade of a state whose run records were tables is package
// migrate's.
package runrec

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Run records are what one reconciliation found (findings, unjudged) and
// what one recheck found (rechecks). Each is written once, as a Parquet
// file of its own under DIR/.billsnap/history/<kind>/, and never
// rewritten: the state holds only their index (run_files), so a
// section's cost does not grow with the findings a store has kept. A
// reconciliation run again on the same snapshot and period replaces its
// files (the index names the new ones; the old are deleted once the state
// has committed); retention deletes a snapshot's files with its rows.
//
// Every generation of the records readers see links to the folders, and
// the read model's views read the files the index lists (the store's
// records); reconcile binds only the files of the snapshots it reads
// (Files.Bind). Nothing in a section reads them all.

// Kind is one kind of run record and its columns ("name TYPE").
type Kind struct {
	Name    string
	Columns []string
}

// DDL is the kind's column list.
func (k Kind) DDL() string { return strings.Join(k.Columns, ", ") }

// The kinds of run records.
var (
	Findings = Kind{"findings", []string{"snapshot_id VARCHAR", "period VARCHAR", "rule VARCHAR", "severity VARCHAR",
		"entity VARCHAR", "entity_id VARCHAR", "amount DECIMAL(18,2)", "currency VARCHAR", "detail VARCHAR", "status VARCHAR",
		"first_seen VARCHAR", "waived BOOLEAN", "waiver_reason VARCHAR", "waiver_owner VARCHAR", "waiver_expires DATE",
		"as_of TIMESTAMPTZ", "reconciled_at TIMESTAMPTZ", "waiver_id VARCHAR", "waiver_by VARCHAR",
		"customer_id VARCHAR", "customer_name VARCHAR", "invoice_number VARCHAR"}}
	Unjudged = Kind{"unjudged", []string{"snapshot_id VARCHAR", "period VARCHAR", "rule VARCHAR", "entity_id VARCHAR",
		"table_name VARCHAR", "field VARCHAR", "json_type VARCHAR", "reconciled_at TIMESTAMPTZ"}}
	Rechecks = Kind{"rechecks", []string{"snapshot_id VARCHAR", "rule VARCHAR", "entity_id VARCHAR", "live VARCHAR",
		"checked_at TIMESTAMPTZ", "detail VARCHAR"}}
)

// Kinds are every kind of run record.
func Kinds() []Kind { return []Kind{Findings, Unjudged, Rechecks} }

// Temporary tables a caller fills on its connection for the store's
// KeepFindings and KeepRechecks, with the columns of their kind (StageTables makes them).
const (
	StagedFindings = "stored_findings"
	StagedUnjudged = "stored_unjudged"
	StagedRechecks = "stored_rechecks"
)

// IndexSQL is the index of the run records' files. A file is
// DIR/.billsnap/history/<kind>/<snapshot_id>.<seq>.parquet; period is
// NULL for a recheck.
const IndexSQL = `
CREATE TABLE IF NOT EXISTS run_files (
  kind VARCHAR NOT NULL,
  snapshot_id VARCHAR NOT NULL,
  period VARCHAR,
  seq BIGINT NOT NULL,
  rows BIGINT NOT NULL
);
`

// File is one indexed file.
type File struct {
	Kind, Snapshot string
	Seq            int64
}

// Files are the run records' files of an output directory.
type Files struct{ at layout.Dir }

// New is the run records' files of output directory at.
func New(at layout.Dir) Files { return Files{at: at} }

// Path is where file f is.
func (h Files) Path(f File) string {
	return filepath.Join(h.at.History(), f.Kind, fmt.Sprintf("%s.%d.parquet", f.Snapshot, f.Seq))
}

// sweepMarker is there while a section may leave files the index does
// not list: written before a section writes or retires a run file,
// removed once the retired files are gone. A section that finds it
// removes every file the index does not list (Sweep).
func (h Files) sweepMarker() string { return filepath.Join(h.at.History(), "sweep") }

// StageTables creates the temporary tables StagedFindings,
// StagedUnjudged and StagedRechecks on conn, empty.
func StageTables(ctx context.Context, conn *sql.Conn) error {
	for _, k := range []struct {
		table string
		kind  Kind
	}{{StagedFindings, Findings}, {StagedUnjudged, Unjudged}, {StagedRechecks, Rechecks}} {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s (%s)", k.table, k.kind.DDL())); err != nil {
			return err
		}
	}
	return nil
}

// Changes is what a section of the state does to the run records: the
// files it adds, and those it retires, deleted once it commits.
type Changes struct {
	files    Files
	retired  []string // files taken out of the index
	sweeping bool     // the sweep marker is written
}

// Begin is the run records' part of section st: its retired files are
// deleted, and the sweep marker removed, when st commits (its OnCommit
// hooks run in the order added: add this one after what must come
// first). When st aborts, the marker stays: the next section sweeps.
func (h Files) Begin(st *state.Tx) *Changes {
	sec := &Changes{files: h}
	st.OnCommit(func() error { sec.removeRetired(); return nil })
	return sec
}

// Dir is the output directory whose run records the section changes.
func (sec *Changes) Dir() string { return string(sec.files.at) }

// Keep writes table's rows to a new file of kind and indexes it.
func (sec *Changes) Keep(ctx context.Context, conn *sql.Conn, kind Kind, snap string, period sql.NullString, table string) error {
	var rows int64
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&rows); err != nil {
		return err
	}
	return sec.Add(ctx, conn, File{Kind: kind.Name, Snapshot: snap}, period, rows, func(path string) error {
		return state.CopyTo(ctx, conn, fmt.Sprintf("SELECT * FROM %s ORDER BY ALL", table), path)
	})
}

// Add numbers a new run file f (its kind and snapshot given), has put
// write it at its path, and indexes it with rows rows.
func (sec *Changes) Add(ctx context.Context, q state.Querier, f File, period sql.NullString, rows int64, put func(path string) error) error {
	if err := sec.markSweep(); err != nil {
		return err
	}
	var err error
	if f.Seq, err = nextSeq(ctx, q); err != nil {
		return err
	}
	path := sec.files.Path(f)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := put(path); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	fileutil.SyncDir(filepath.Dir(path))
	_, err = q.ExecContext(ctx, "INSERT INTO run_files VALUES (?, ?, ?, ?, ?)", f.Kind, f.Snapshot, period, f.Seq, rows)
	return err
}

// nextSeq gives the next number of a run file, never one given before
// (billsnap_meta's run_seq, which the index's numbers cannot pass: a
// file retired and deleted keeps its number taken).
func nextSeq(ctx context.Context, conn state.Querier) (int64, error) {
	var n int64
	err := conn.QueryRowContext(ctx, `SELECT greatest(coalesce((SELECT max(seq) FROM run_files), 0),
		coalesce((SELECT CAST(value AS BIGINT) FROM billsnap_meta WHERE key = 'run_seq'), 0)) + 1`).Scan(&n)
	if err == nil {
		_, err = conn.ExecContext(ctx, "INSERT OR REPLACE INTO billsnap_meta VALUES ('run_seq', ?)", fmt.Sprint(n))
	}
	return n, err
}

// Retire takes the files the condition selects out of the index; they
// are deleted once the section commits.
func (sec *Changes) Retire(ctx context.Context, q state.Querier, cond string, args ...any) error {
	files, err := List(ctx, q, cond, args...)
	if err != nil || len(files) == 0 {
		return err
	}
	if err := sec.markSweep(); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM run_files WHERE "+cond, args...); err != nil {
		return err
	}
	for _, f := range files {
		sec.retired = append(sec.retired, sec.files.Path(f))
	}
	return nil
}

// List lists the indexed files the condition selects, oldest first.
func List(ctx context.Context, q state.Querier, cond string, args ...any) ([]File, error) {
	rows, err := q.QueryContext(ctx, "SELECT kind, snapshot_id, seq FROM run_files WHERE "+cond+" ORDER BY seq", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []File
	for rows.Next() {
		var f File
		if err := rows.Scan(&f.Kind, &f.Snapshot, &f.Seq); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// relation reads the files of kind, or none of its rows when files is
// empty.
func (h Files) relation(kind Kind, files []File) string {
	if len(files) == 0 {
		return EmptyRelation(kind)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = state.SQLString(h.Path(f))
	}
	// By name: files written before a column was added lack it (NULL).
	return fmt.Sprintf("%s UNION ALL BY NAME SELECT * FROM read_parquet([%s], union_by_name = true, hive_partitioning = false)", EmptyRelation(kind), strings.Join(paths, ", "))
}

// EmptyRelation is a relation with kind's columns and no row.
func EmptyRelation(kind Kind) string {
	var cols []string
	for _, c := range kind.Columns {
		name, typ, _ := strings.Cut(c, " ")
		cols = append(cols, fmt.Sprintf("NULL::%s AS %s", typ, name))
	}
	return "SELECT * FROM (SELECT " + strings.Join(cols, ", ") + ") WHERE false"
}

// Bind makes the views prev.stored_findings (every finding stored
// for snapshot prev, all periods) and cur.stored_rechecks (every recheck
// of snapshot cur's findings) on conn, reading only those snapshots'
// files, and returns the files of prev's findings. conn is a connection
// of the state.
func (h Files) Bind(ctx context.Context, conn *sql.Conn, cur, prev string) ([]File, error) {
	var prevFiles []File
	for _, b := range []struct {
		view, snap string
		kind       Kind
	}{{"prev.stored_findings", prev, Findings}, {"cur.stored_rechecks", cur, Rechecks}} {
		files, err := List(ctx, conn, "kind = ? AND snapshot_id = ?", b.kind.Name, b.snap)
		if err != nil {
			return nil, err
		}
		if b.kind.Name == Findings.Name {
			prevFiles = files
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", b.view, h.relation(b.kind, files))); err != nil {
			return nil, err
		}
	}
	return prevFiles, nil
}

// markSweep writes the sweep marker, once a section.
func (sec *Changes) markSweep() error {
	if sec.sweeping {
		return nil
	}
	at := sec.files.at
	if err := os.MkdirAll(at.History(), 0o755); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := os.WriteFile(sec.files.sweepMarker(), nil, 0o644); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	fileutil.SyncDir(at.History())
	sec.sweeping = true
	return nil
}

// removeRetired deletes the files a committed section retired, and the
// sweep marker.
func (sec *Changes) removeRetired() {
	for _, p := range sec.retired {
		os.Remove(p)
	}
	sec.retired = nil
	if sec.sweeping {
		os.Remove(sec.files.sweepMarker())
		sec.sweeping = false
	}
}

// Sweep removes, when the sweep marker is there, every run file
// the index does not list: what a section wrote before it failed or was
// killed, and what a committed one retired and did not delete. db is the
// state, in a section.
func (h Files) Sweep(ctx context.Context, db *sql.DB) error {
	if _, err := os.Stat(h.sweepMarker()); err != nil {
		return nil
	}
	files, err := List(ctx, db, "true")
	if err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, f := range files {
		listed[h.Path(f)] = true
	}
	for _, k := range Kinds() {
		entries, err := os.ReadDir(filepath.Join(h.at.History(), k.Name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("history: %w", err)
		}
		for _, e := range entries {
			if p := filepath.Join(h.at.History(), k.Name, e.Name()); !listed[p] && e.Name() != EmptyFile {
				os.Remove(p)
			}
		}
	}
	return os.Remove(h.sweepMarker())
}

// EmptyFile is the empty file of a folder of run records, which readers'
// views read when the index lists none.
const EmptyFile = "empty.parquet"
