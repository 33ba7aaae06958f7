package runrec

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/billsnap/billsnap/snapshot/state"
)

// Plain is a database that is not a store's state (reconcile's
// fixtures): the tables of migrate.State, and the run records' as tables
// (PlainHistory). As what a reconciliation reads, it keeps what it found
// in those tables.
type Plain struct{ Database *sql.DB }

// PlainHistory creates the tables findings, unjudged and rechecks in db,
// with the run records' columns.
func PlainHistory(ctx context.Context, db *sql.DB) error {
	for _, k := range Kinds() {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", k.Name, k.DDL())); err != nil {
			return err
		}
	}
	return nil
}

// DB is the database.
func (p Plain) DB() *sql.DB { return p.Database }

// Stage keeps what conn's StagedFindings and StagedUnjudged hold as the
// findings of rec's snapshot and period in p's tables, in place of an
// earlier reconciliation's, with rec and its totals.
func (p Plain) Stage(ctx context.Context, conn *sql.Conn, rec Reconciliation) error {
	for _, k := range []struct{ table, staged string }{{Findings.Name, StagedFindings}, {Unjudged.Name, StagedUnjudged}} {
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
