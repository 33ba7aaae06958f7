package snapshot

import (
	"context"
	"database/sql"

	"github.com/billsnap/billsnap/internal/crashpoint"

	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Section is a section of billsnap's state under way, a value of its
// own: its database (DB), the run records it keeps (KeepFindings,
// KeepRechecks), and what it built beside the state, shown when it
// commits (publishPending, and its run records' part) and dropped when it
// aborts (dropRecords). It is valid only inside the fn of the Update or
// Change that made it.
type Section struct {
	st          *state.Section
	built       string          // a read model built, published when the section commits
	recordsNext string          // the records' generation built, shown when it commits
	publicStale bool            // the public file is to be copied from the master when it commits
	runs        *runrec.Section // the run files it added and retired
}

// DB is the section's copy of billsnap's state, a database only billsnap
// opens.
func (sec *Section) DB() *sql.DB { return sec.st.DB }

// Update runs fn in a section of billsnap's state (state.File.Update):
// all or nothing, on a copy of the state that replaces it only when fn
// succeeds. What the section built (the records, a read model) is shown
// after that. A section first brings the state to this billsnap's schema
// and finishes a publish that a crash cut short (begin). Sections are
// brief; an export holds one at its start and one to publish, a
// reconciliation one.
func (s *Store) Update(ctx context.Context, fn func(sec *Section) error) error {
	return s.stateFile().Update(ctx, func(st *state.Section) error {
		sec := s.newSection(st)
		if err := s.begin(ctx, sec); err != nil {
			return err
		}
		return fn(sec)
	})
}

// Change is Update for a change of the state that readers should see: after
// fn, the read model is published again with the state's tables as they
// are (the findings of a reconciliation, a pruned manifest).
func (s *Store) Change(ctx context.Context, fn func(sec *Section) error) error {
	return s.Update(ctx, func(sec *Section) error {
		if err := fn(sec); err != nil {
			return err
		}
		return s.syncModel(ctx, sec)
	})
}

// newSection is the store's value of section st, whose hooks show what
// it built when it commits and drop it when it aborts (the sweep marker
// stays then: the next section sweeps).
func (s *Store) newSection(st *state.Section) *Section {
	sec := &Section{st: st}
	st.BeforeCommit(func() error { return s.markPending(sec) })
	st.OnCommit(func() error { return s.publishPending(sec) })
	sec.runs = s.runs.Begin(st) // its retired files deleted once what it built is shown
	st.OnAbort(func() { s.dropRecords(sec) })
	return sec
}

// begin brings a section's state to this billsnap's schema, sweeps what
// an earlier section left, upgrades older run records, and finishes a
// publish that a crash cut short.
func (s *Store) begin(ctx context.Context, sec *Section) error {
	if err := migrate.State(ctx, sec.DB()); err != nil {
		return err
	}
	err := s.runs.Sweep(ctx, sec.DB())
	state.SweepEnded(s.at.HistoryStaging(), 1, runrec.StagingAge) // <kind>.<pid>.<nanoseconds>.parquet
	state.SweepEnded(s.at.StateTemp(), 0, 0)                      // DuckDB spilled to <pid>.<n>
	if err != nil {
		return err
	}
	upgraded, err := migrate.UpgradeRunRecords(ctx, sec.runs, sec.DB(), s.log)
	if err == nil && upgraded {
		err = s.syncModel(ctx, sec)
	}
	if err != nil {
		return err
	}
	return s.finishPublish(ctx, sec)
}

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
