package snapshot

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/billsnap/billsnap/internal/crashpoint"

	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// KeepFindings records what conn's runrec.StagedFindings and
// runrec.StagedUnjudged hold (tables runrec.StageTables makes)
// as the findings of snapshot snap and period, in place of those an
// earlier reconciliation of both recorded. conn is a connection of the
// section's DB.
func (sec *Section) KeepFindings(ctx context.Context, conn *sql.Conn, snap, period string) error {
	runs := sec.runs
	for _, k := range []struct {
		kind  runrec.Kind
		table string
	}{{runrec.Findings, runrec.StagedFindings}, {runrec.Unjudged, runrec.StagedUnjudged}} {
		if err := runs.Retire(ctx, conn, "kind = ? AND snapshot_id = ? AND period = ?", k.kind.Name, snap, period); err != nil {
			return err
		}
		if err := runs.Keep(ctx, conn, k.kind, snap, sql.NullString{String: period, Valid: true}, k.table); err != nil {
			return err
		}
	}
	crashpoint.Hit("history.kept")
	return nil
}

// KeepRechecks records what conn's runrec.StagedRechecks holds as one recheck of
// snapshot snap's findings, beside the earlier ones. conn is a connection
// of the section's DB.
func (sec *Section) KeepRechecks(ctx context.Context, conn *sql.Conn, snap string) error {
	return sec.runs.Keep(ctx, conn, runrec.Rechecks, snap, sql.NullString{}, runrec.StagedRechecks)
}

// Plain is a database that is not a store's state (reconcile's
// fixtures): the tables of MigrateState, and the run records' as tables
// (PlainHistory). As what a reconciliation reads, it keeps what it found
// in those tables.
type Plain struct{ Database *sql.DB }

// PlainHistory creates the tables findings, unjudged and rechecks in db,
// with the run records' columns.
func PlainHistory(ctx context.Context, db *sql.DB) error {
	for _, k := range runrec.Kinds() {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", k.Name, k.DDL())); err != nil {
			return err
		}
	}
	return nil
}

// DB is the database.
func (p Plain) DB() *sql.DB { return p.Database }

// Stage keeps what conn's runrec.StagedFindings and runrec.StagedUnjudged hold as the
// findings of rec's snapshot and period, with rec and its totals
// (runrec.KeepTables).
func (p Plain) Stage(ctx context.Context, conn *sql.Conn, rec runrec.Reconciliation) error {
	return runrec.KeepTables(ctx, conn, rec)
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
