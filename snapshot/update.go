package snapshot

import (
	"context"

	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Update runs fn in a section of billsnap's state (state.File.Update):
// all or nothing, on a copy of the state that replaces it only when fn
// succeeds. What the section built (the records, a read model) is shown
// after that. A section first brings the state to this billsnap's schema
// and finishes a publish that a crash cut short (begin). Sections are
// brief; an export holds one at its start and one to publish, a
// reconciliation one.
func (s *Store) Update(ctx context.Context, fn func(sec *Section) error) error {
	return s.stateFile().Update(ctx, func(st *state.Tx) error {
		sec := s.newSection(st)
		if err := s.begin(ctx, sec); err != nil {
			return err
		}
		return fn(sec)
	})
}

// UpdateAndPublish is Update for a change of the state that readers should see: after
// fn, the read model is published again with the state's tables as they
// are (the findings of a reconciliation, a pruned manifest).
func (s *Store) UpdateAndPublish(ctx context.Context, fn func(sec *Section) error) error {
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
func (s *Store) newSection(st *state.Tx) *Section {
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
