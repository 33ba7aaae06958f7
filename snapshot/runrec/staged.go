package runrec

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Reconciliation is what one reconciliation records beside its findings:
// which snapshot and period it judged, as of when, when it ran, how many
// findings are open (findings.Report.OpenCount: neither resolved nor
// waived) and whether any is material.
type Reconciliation struct {
	Snapshot, Period string
	AsOf, At         time.Time
	Open             int
	Material         bool
}

// Staged is what a reconciliation staged outside a section (Stage): a
// file of findings and one of unjudged, and the reconciliation's row and
// totals, until a section keeps them (Keep) or they are dropped (Drop).
type Staged struct {
	Rec    Reconciliation
	totals []total
	files  []stagedFile
}

// stagedFile is a file of run records written outside a section.
type stagedFile struct {
	kind Kind
	path string
	rows int64
}

// total is a row of reconciliation_totals: the open findings (neither
// resolved nor waived) of one severity and currency, and their amount.
type total struct {
	severity, currency string
	findings           int64
	amount             string
}

// Stage writes what conn's StagedFindings and StagedUnjudged hold to
// files of their own in dir (named <kind>.<pid>.<nanoseconds>.parquet,
// so that a section sweeps those an ended process left), with rec and its
// totals. What it wrote is dropped when it fails.
func Stage(ctx context.Context, conn *sql.Conn, dir string, rec Reconciliation) (*Staged, error) {
	totals, err := totalsOf(ctx, conn)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	st := &Staged{Rec: rec, totals: totals}
	for _, k := range []struct {
		kind  Kind
		table string
	}{{Findings, StagedFindings}, {Unjudged, StagedUnjudged}} {
		if err := st.stage(ctx, conn, dir, k.kind, k.table); err != nil {
			st.Drop()
			return nil, err
		}
	}
	crashpoint.Hit("history.staged")
	return st, nil
}

// stage writes table, of kind, to a file of its own in dir.
func (st *Staged) stage(ctx context.Context, conn *sql.Conn, dir string, kind Kind, table string) error {
	f := stagedFile{kind: kind, path: filepath.Join(dir, fmt.Sprintf("%s.%d.%d.parquet", kind.Name, os.Getpid(), time.Now().UnixNano()))}
	st.files = append(st.files, f)
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&st.files[len(st.files)-1].rows); err != nil {
		return err
	}
	if err := state.CopyTo(ctx, conn, fmt.Sprintf("SELECT * FROM %s ORDER BY ALL", table), f.path); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Drop removes the files Stage wrote that Keep has not moved.
func (st *Staged) Drop() {
	for _, f := range st.files {
		os.Remove(f.path)
		os.Remove(f.path + ".tmp")
	}
	st.files = nil
}

// Keep records st on q in section sec: its files become the run records
// of its snapshot and period, in place of an earlier reconciliation's,
// with its row of reconciliations and its totals.
func (st *Staged) Keep(ctx context.Context, sec *Changes, q state.Querier) error {
	period := sql.NullString{String: st.Rec.Period, Valid: true}
	for _, f := range st.files {
		if err := sec.Retire(ctx, q, "kind = ? AND snapshot_id = ? AND period = ?", f.kind.Name, st.Rec.Snapshot, st.Rec.Period); err != nil {
			return err
		}
		err := sec.Add(ctx, q, File{Kind: f.kind.Name, Snapshot: st.Rec.Snapshot}, period, f.rows, func(path string) error {
			return os.Rename(f.path, path)
		})
		if err != nil {
			return err
		}
	}
	return recordReconciliation(ctx, q, st.Rec, st.totals)
}

// totalsOf is what conn's StagedFindings give reconciliation_totals.
func totalsOf(ctx context.Context, conn *sql.Conn) ([]total, error) {
	rows, err := conn.QueryContext(ctx, `SELECT severity, coalesce(currency, ''), count(*) FILTER (WHERE NOT waived),
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

// StagingAge is how old a staged file is (by the wall clock, which sets
// its time, not the store's) before a section takes it for the leftover
// of a reconciliation that was killed, though another process of its
// number runs (a number used again): a reading stages its files just
// before it keeps them.
const StagingAge = time.Hour
