package snapshot

import (
	"context"
	"database/sql"

	"github.com/billsnap/billsnap/internal/crashpoint"

	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Section is a section of billsnap's state under way, a value of its
// own: its database (DB), the run records it keeps (KeepFindings,
// KeepRechecks), and what it built beside the state, shown when it
// commits (publishPending, and its run records' part) and dropped when it
// aborts (dropRecords). It is valid only inside the fn of the Update or
// UpdateAndPublish that made it.
type Section struct {
	st          *state.Tx
	built       string          // a read model built, published when the section commits
	recordsNext string          // the records' generation built, shown when it commits
	runs        *runrec.Changes // the run files it added and retired
	dead        []string        // history's files no view reads once what it built is shown
}

// DB is the section's copy of billsnap's state, a database only billsnap
// opens.
func (sec *Section) DB() *sql.DB { return sec.st.DB }

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
