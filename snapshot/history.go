package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/billsnap/billsnap/internal/crashpoint"
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
// the read model's views read the files the index lists (records.go);
// reconcile binds only the files of the snapshots it reads (Bind,
// bindHistory). Nothing in a section reads them all.

// runKind is one kind of run record and its columns ("name TYPE").
type runKind struct {
	name    string
	columns []string
}

// ddl is the kind's column list.
func (k runKind) ddl() string { return strings.Join(k.columns, ", ") }

var (
	findingsKind = runKind{"findings", []string{"snapshot_id VARCHAR", "period VARCHAR", "rule VARCHAR", "severity VARCHAR",
		"entity VARCHAR", "entity_id VARCHAR", "amount DECIMAL(18,2)", "currency VARCHAR", "detail VARCHAR", "status VARCHAR",
		"first_seen VARCHAR", "waived BOOLEAN", "waiver_reason VARCHAR", "waiver_owner VARCHAR", "waiver_expires DATE",
		"as_of TIMESTAMPTZ", "reconciled_at TIMESTAMPTZ", "waiver_id VARCHAR", "waiver_by VARCHAR"}}
	unjudgedKind = runKind{"unjudged", []string{"snapshot_id VARCHAR", "period VARCHAR", "rule VARCHAR", "entity_id VARCHAR",
		"table_name VARCHAR", "field VARCHAR", "json_type VARCHAR", "reconciled_at TIMESTAMPTZ"}}
	rechecksKind = runKind{"rechecks", []string{"snapshot_id VARCHAR", "rule VARCHAR", "entity_id VARCHAR", "live VARCHAR",
		"checked_at TIMESTAMPTZ", "detail VARCHAR"}}
	runKinds = []runKind{findingsKind, unjudgedKind, rechecksKind}
)

// Temporary tables a caller fills on its connection for KeepFindings and
// KeepRechecks, with the columns of their kind (StageTables makes them).
const (
	StagedFindings = "stored_findings"
	StagedUnjudged = "stored_unjudged"
	StagedRechecks = "stored_rechecks"
)

// runFilesSQL is the index of the run records' files. A file is
// DIR/.billsnap/history/<kind>/<snapshot_id>.<seq>.parquet; period is
// NULL for a recheck.
const runFilesSQL = `
CREATE TABLE IF NOT EXISTS run_files (
  kind VARCHAR NOT NULL,
  snapshot_id VARCHAR NOT NULL,
  period VARCHAR,
  seq BIGINT NOT NULL,
  rows BIGINT NOT NULL
);
`

// runFile is one indexed file.
type runFile struct {
	kind, snapshot string
	seq            int64
}

func (s *Store) runFilePath(f runFile) string {
	return filepath.Join(s.at.History(), f.kind, fmt.Sprintf("%s.%d.parquet", f.snapshot, f.seq))
}

// sweepMarker is there while a section may leave files the index does
// not list: written before a section writes or retires a run file,
// removed once the retired files are gone. A section that finds it
// removes every file the index does not list (sweepHistory).
func (s *Store) sweepMarker() string { return filepath.Join(s.at.History(), "sweep") }

// StageTables creates the temporary tables StagedFindings,
// StagedUnjudged and StagedRechecks on conn, empty.
func StageTables(ctx context.Context, conn *sql.Conn) error {
	for _, k := range []struct {
		table string
		kind  runKind
	}{{StagedFindings, findingsKind}, {StagedUnjudged, unjudgedKind}, {StagedRechecks, rechecksKind}} {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s (%s)", k.table, k.kind.ddl())); err != nil {
			return err
		}
	}
	return nil
}

// KeepFindings records what conn's StagedFindings and StagedUnjudged hold
// as the findings of snapshot snap and period, in place of those an
// earlier reconciliation of both recorded. conn is a connection of the
// state, in a section (Update's fn).
func (s *Store) KeepFindings(ctx context.Context, conn *sql.Conn, snap, period string) error {
	sec := s.current
	for _, k := range []struct {
		kind  runKind
		table string
	}{{findingsKind, StagedFindings}, {unjudgedKind, StagedUnjudged}} {
		if err := s.retire(ctx, sec, conn, "kind = ? AND snapshot_id = ? AND period = ?", k.kind.name, snap, period); err != nil {
			return err
		}
		if err := s.keep(ctx, sec, conn, k.kind, snap, sql.NullString{String: period, Valid: true}, k.table); err != nil {
			return err
		}
	}
	crashpoint.Hit("history.kept")
	return nil
}

// KeepRechecks records what conn's StagedRechecks holds as one recheck of
// snapshot snap's findings, beside the earlier ones. conn is a connection
// of the state, in a section (Update's fn).
func (s *Store) KeepRechecks(ctx context.Context, conn *sql.Conn, snap string) error {
	return s.keep(ctx, s.current, conn, rechecksKind, snap, sql.NullString{}, StagedRechecks)
}

// keep writes table's rows to a new file of kind and indexes it.
func (s *Store) keep(ctx context.Context, sec *section, conn *sql.Conn, kind runKind, snap string, period sql.NullString, table string) error {
	var rows int64
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&rows); err != nil {
		return err
	}
	return s.addRunFile(ctx, sec, conn, runFile{kind: kind.name, snapshot: snap}, period, rows, func(path string) error {
		return copyTo(ctx, conn, fmt.Sprintf("SELECT * FROM %s ORDER BY ALL", table), path)
	})
}

// addRunFile numbers a new run file f (its kind and snapshot given), has
// put write it at its path, and indexes it with rows rows, in section sec.
func (s *Store) addRunFile(ctx context.Context, sec *section, q state.Querier, f runFile, period sql.NullString, rows int64, put func(path string) error) error {
	if err := s.markSweep(sec); err != nil {
		return err
	}
	var err error
	if f.seq, err = nextSeq(ctx, q); err != nil {
		return err
	}
	path := s.runFilePath(f)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := put(path); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	state.SyncDir(filepath.Dir(path))
	_, err = q.ExecContext(ctx, "INSERT INTO run_files VALUES (?, ?, ?, ?, ?)", f.kind, f.snapshot, period, f.seq, rows)
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

// retire takes the files the condition selects out of the index; they
// are deleted once section sec commits (removeRetired).
func (s *Store) retire(ctx context.Context, sec *section, q state.Querier, cond string, args ...any) error {
	files, err := s.runFiles(ctx, q, cond, args...)
	if err != nil || len(files) == 0 {
		return err
	}
	if err := s.markSweep(sec); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM run_files WHERE "+cond, args...); err != nil {
		return err
	}
	for _, f := range files {
		sec.retired = append(sec.retired, s.runFilePath(f))
	}
	return nil
}

// runFiles lists the indexed files the condition selects, oldest first.
func (s *Store) runFiles(ctx context.Context, q state.Querier, cond string, args ...any) ([]runFile, error) {
	rows, err := q.QueryContext(ctx, "SELECT kind, snapshot_id, seq FROM run_files WHERE "+cond+" ORDER BY seq", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runFile
	for rows.Next() {
		var f runFile
		if err := rows.Scan(&f.kind, &f.snapshot, &f.seq); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// filesRelation reads the files of kind, or none of its rows when files is
// empty.
func (s *Store) filesRelation(kind runKind, files []runFile) string {
	if len(files) == 0 {
		return emptyRelation(kind)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = state.SQLString(s.runFilePath(f))
	}
	return fmt.Sprintf("SELECT * FROM read_parquet([%s])", strings.Join(paths, ", "))
}

// emptyRelation is a relation with kind's columns and no row.
func emptyRelation(kind runKind) string {
	var cols []string
	for _, c := range kind.columns {
		name, typ, _ := strings.Cut(c, " ")
		cols = append(cols, fmt.Sprintf("NULL::%s AS %s", typ, name))
	}
	return "SELECT * FROM (SELECT " + strings.Join(cols, ", ") + ") WHERE false"
}

// bindHistory makes the views prev.stored_findings (every finding stored
// for snapshot prev, all periods) and cur.stored_rechecks (every recheck
// of snapshot cur's findings) on conn, reading only those snapshots'
// files, and returns the files of prev's findings. conn is a connection
// of the state.
func (s *Store) bindHistory(ctx context.Context, conn *sql.Conn, cur, prev string) ([]runFile, error) {
	var prevFiles []runFile
	for _, b := range []struct {
		view, snap string
		kind       runKind
	}{{"prev.stored_findings", prev, findingsKind}, {"cur.stored_rechecks", cur, rechecksKind}} {
		files, err := s.runFiles(ctx, conn, "kind = ? AND snapshot_id = ?", b.kind.name, b.snap)
		if err != nil {
			return nil, err
		}
		if b.kind.name == findingsKind.name {
			prevFiles = files
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", b.view, s.filesRelation(b.kind, files))); err != nil {
			return nil, err
		}
	}
	return prevFiles, nil
}

// markSweep writes the sweep marker, once a section.
func (s *Store) markSweep(sec *section) error {
	if sec.sweeping {
		return nil
	}
	if err := os.MkdirAll(s.at.History(), 0o755); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := os.WriteFile(s.sweepMarker(), nil, 0o644); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	state.SyncDir(s.at.History())
	sec.sweeping = true
	return nil
}

// removeRetired deletes the files a committed section retired, and the
// sweep marker.
func (s *Store) removeRetired(sec *section) {
	for _, p := range sec.retired {
		os.Remove(p)
	}
	sec.retired = nil
	if sec.sweeping {
		os.Remove(s.sweepMarker())
		sec.sweeping = false
	}
}

// sweepHistory removes, when the sweep marker is there, every run file
// the index does not list: what a section wrote before it failed or was
// killed, and what a committed one retired and did not delete. db is the
// state, in a section.
func (s *Store) sweepHistory(ctx context.Context, db *sql.DB) error {
	if _, err := os.Stat(s.sweepMarker()); err != nil {
		return nil
	}
	files, err := s.runFiles(ctx, db, "true")
	if err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, f := range files {
		listed[s.runFilePath(f)] = true
	}
	for _, k := range runKinds {
		entries, err := os.ReadDir(filepath.Join(s.at.History(), k.name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("history: %w", err)
		}
		for _, e := range entries {
			if p := filepath.Join(s.at.History(), k.name, e.Name()); !listed[p] && e.Name() != emptyFile {
				os.Remove(p)
			}
		}
	}
	return os.Remove(s.sweepMarker())
}

// legacyTables are the run records' tables of a state before version 6
// (or of a state adopted from a read model, whose views they copy).
func legacyTables(ctx context.Context, q state.Querier) ([]runKind, error) {
	rows, err := q.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_catalog = ? AND table_schema = 'main' AND table_type = 'BASE TABLE' AND list_contains(?, table_name)`,
		state.AttachedAs, []string{findingsKind.name, unjudgedKind.name, rechecksKind.name})
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runKind
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		for _, k := range runKinds {
			if k.name == name {
				out = append(out, k)
			}
		}
	}
	return out, rows.Err()
}

// upgradeHistory makes the run records of a state whose findings,
// unjudged and rechecks are tables (a state before version 6): each
// reconciliation's rows (each snapshot's, for rechecks) become a file,
// the findings' totals are computed for the trend, and the tables are
// dropped, in the section's state, which is then marked (billsnap_meta's
// run_records) so that later sections look no further. It tells whether
// it upgraded: the records are then to be published again. A kill during
// the upgrade leaves the state as it was, and files that the next section
// sweeps away.
func (s *Store) upgradeHistory(ctx context.Context, sec *section) (bool, error) {
	conn, err := sec.DB.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var marked int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM billsnap_meta WHERE key = 'run_records'").Scan(&marked); err != nil || marked > 0 {
		return false, err
	}
	legacy, err := legacyTables(ctx, conn)
	if err != nil {
		return false, err
	}
	if len(legacy) > 0 {
		if err := s.upgradeTables(ctx, sec, conn, legacy); err != nil {
			return false, err
		}
	}
	_, err = conn.ExecContext(ctx, "INSERT INTO billsnap_meta VALUES ('run_records', 'files')")
	return len(legacy) > 0, err
}

// upgradeTables writes the legacy tables' rows as run files and drops
// the tables.
func (s *Store) upgradeTables(ctx context.Context, sec *section, conn *sql.Conn, legacy []runKind) error {
	s.log.Warn("upgrading billsnap's state: findings, unjudged and rechecks become a file a run", "dir", s.at)
	if err := StageTables(ctx, conn); err != nil {
		return err
	}
	for _, k := range legacy {
		if err := s.upgradeKind(ctx, sec, conn, k); err != nil {
			return fmt.Errorf("upgrading %s: %w", k.name, err)
		}
	}
	for _, k := range legacy {
		if _, err := conn.ExecContext(ctx, "DROP TABLE main."+k.name); err != nil {
			return err
		}
	}
	crashpoint.Hit("history.upgraded")
	return nil
}

// upgradeKind writes legacy table k's rows as run files, a file for each
// snapshot and period (each snapshot, for rechecks).
func (s *Store) upgradeKind(ctx context.Context, sec *section, conn *sql.Conn, k runKind) error {
	staged := map[string]string{findingsKind.name: StagedFindings, unjudgedKind.name: StagedUnjudged, rechecksKind.name: StagedRechecks}[k.name]
	period, cond := "period", "snapshot_id = ? AND period = ?"
	if k.name == rechecksKind.name {
		period, cond = "NULL", "snapshot_id = ? AND ? IS NULL"
	}
	groups, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT DISTINCT snapshot_id, %s FROM main.%s ORDER BY ALL", period, k.name))
	if err != nil {
		return err
	}
	type key struct {
		snap   string
		period sql.NullString
	}
	var keys []key
	for groups.Next() {
		var g key
		if err := groups.Scan(&g.snap, &g.period); err != nil {
			groups.Close()
			return err
		}
		keys = append(keys, g)
	}
	if err := errors.Join(groups.Err(), groups.Close()); err != nil {
		return err
	}
	if k.name == findingsKind.name {
		if err := upgradeTotals(ctx, conn); err != nil {
			return err
		}
	}
	for _, g := range keys {
		if _, err := conn.ExecContext(ctx, "DELETE FROM "+staged); err != nil {
			return err
		}
		q := fmt.Sprintf("INSERT INTO %s BY NAME SELECT * FROM main.%s WHERE %s", staged, k.name, cond)
		if _, err := conn.ExecContext(ctx, q, g.snap, g.period); err != nil {
			return err
		}
		if err := s.keep(ctx, sec, conn, k, g.snap, g.period, staged); err != nil {
			return err
		}
	}
	return nil
}

// upgradeTotals computes every reconciliation's totals from the legacy
// findings table.
func upgradeTotals(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `DELETE FROM reconciliation_totals;
		INSERT INTO reconciliation_totals SELECT snapshot_id, period, severity, coalesce(currency, ''), count(*),
		  coalesce(sum(amount) FILTER (WHERE NOT waived), 0)
		FROM main.findings WHERE status <> 'resolved' GROUP BY ALL`)
	return err
}

// Plain is a database that is not a store's state (reconcile's
// fixtures): the tables of MigrateState, and the run records' as tables
// (PlainHistory). As what a reconciliation reads, it keeps what it found
// in those tables.
type Plain struct{ Database *sql.DB }

// PlainHistory creates the tables findings, unjudged and rechecks in db,
// with the run records' columns.
func PlainHistory(ctx context.Context, db *sql.DB) error {
	for _, k := range runKinds {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", k.name, k.ddl())); err != nil {
			return err
		}
	}
	return nil
}

// DB is the database.
func (p Plain) DB() *sql.DB { return p.Database }

// Stage keeps what conn's StagedFindings and StagedUnjudged hold as the
// findings of rec's snapshot and period, with rec and its totals.
func (p Plain) Stage(ctx context.Context, conn *sql.Conn, rec Reconciliation) error {
	for _, k := range []struct{ table, staged string }{{findingsKind.name, StagedFindings}, {unjudgedKind.name, StagedUnjudged}} {
		if _, err := conn.ExecContext(ctx, "DELETE FROM main."+k.table+" WHERE snapshot_id = ? AND period = ?", rec.Snapshot, rec.Period); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO main."+k.table+" SELECT * FROM "+k.staged); err != nil {
			return err
		}
	}
	totals, err := totalsOf(ctx, conn)
	if err != nil {
		return err
	}
	return recordReconciliation(ctx, conn, rec, totals)
}

// Bind makes the views of the run records a store's reading binds, over
// the tables of PlainHistory in the connection's database; the views of
// the snapshots' rows are the caller's.
func (p Plain) Bind(ctx context.Context, conn *sql.Conn, cur, prev string) error {
	var db string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&db); err != nil {
		return err
	}
	for _, b := range []struct{ view, table, snap string }{{"prev.stored_findings", "findings", prev}, {"cur.stored_rechecks", "rechecks", cur}} {
		q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM %s.main.%s WHERE snapshot_id = %s", b.view, state.QuoteIdent(db), b.table, state.SQLString(b.snap))
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
