package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// The read model (package readmodel) is built in a section of the state
// and published when the section commits: the section's value holds the
// model it built (built) and whether the public file is to be copied
// again (publicStale).

// model is the store's read model as the store has it now (its tables
// change when a snapshot assigns field IDs).
func (s *Store) model() readmodel.Model {
	return readmodel.Model{At: s.at, Public: s.publicPath, Tables: s.tables,
		Trees: []readmodel.Tree{{Link: s.tree.Link, Status: StatusComplete},
			{Link: s.incomplete.Link, Status: StatusIncomplete, Prefix: "incomplete_"}},
		Records: s.recs, RecordsLink: s.records.Link, Runs: s.runs, RowGroupSize: s.duck.RowGroupSize, Log: s.log}
}

// publishModel makes base, a private DuckDB file holding latest_<table>
// tables, the next read model (readmodel.Model.Build), which section sec
// publishes once it commits (publishPending). latest is the snapshot its
// latest_ tables hold ("" when none).
func (s *Store) publishModel(ctx context.Context, sec *Section, base, latest string) error {
	if err := s.model().Build(ctx, sec.DB(), base, latest); err != nil {
		return err
	}
	sec.built = base
	return nil
}

// modelOf makes the read model of complete snapshot id: from its DuckDB
// file in staging, or rebuilt from its Parquet when that is gone or cannot
// be used (a run killed while it was being made the model).
func (s *Store) modelOf(ctx context.Context, sec *Section, id string) error {
	next := s.at.MasterNext()
	os.Remove(next)
	os.Remove(next + ".wal")
	if err := os.Rename(s.at.StagedModel(id), next); err == nil {
		err := s.publishModel(ctx, sec, next, id)
		if err == nil {
			return nil
		}
		s.log.Warn("the snapshot's DuckDB file cannot be made the read model; building it from the Parquet", "snapshot", id, "error", err)
	}
	if err := s.model().FromParquet(ctx, sec.DB(), id, next); err != nil {
		return err
	}
	return s.publishModel(ctx, sec, next, id)
}

// bind makes the views reconcile reads on conn (readmodel.Model.Bind).
func (s *Store) bind(ctx context.Context, conn *sql.Conn, cur, prev string) ([]runrec.File, error) {
	return s.model().Bind(ctx, conn, cur, prev)
}

// markPending records, before a section commits, that what it built is
// to be shown: the marker stays until publishPending has shown it all,
// so that the next billsnap finishes a publish a crash cut short
// (finishPublish).
func (s *Store) markPending(sec *Section) error {
	if sec.built == "" && sec.recordsNext == "" {
		return nil
	}
	return os.WriteFile(s.at.PublishPending(), nil, 0o644)
}

// publishPending shows what a section built, once the state has
// committed: the records' generation, then the model, renamed over the
// master and copied over the public file.
func (s *Store) publishPending(sec *Section) error {
	built, stale := sec.built, sec.publicStale
	sec.built, sec.publicStale = "", false
	if built == "" && sec.recordsNext == "" && !stale {
		return nil
	}
	if err := s.showRecords(sec); err != nil {
		return err
	}
	crashpoint.Hit("records.shown")
	if built != "" {
		// The master is not made durable before its rename (only the
		// public copy is): after a power cut it may be cut short, and the
		// next publish builds it anew (syncModel).
		if _, err := os.Stat(built + ".wal"); err == nil {
			return fmt.Errorf("read model: %s still has a WAL after its checkpoint", built)
		}
		if err := os.Rename(built, s.at.Master()); err != nil {
			return fmt.Errorf("read model: %w", err)
		}
		state.SyncDir(s.at.Private())
		crashpoint.Hit("model.master")
	}
	if built != "" || stale {
		if err := s.model().CopyToPublic(); err != nil {
			return err
		}
	}
	return os.Remove(s.at.PublishPending())
}

// finishPublish publishes the state and the master again when a crash cut
// a publish short.
func (s *Store) finishPublish(ctx context.Context, sec *Section) error {
	if _, err := os.Stat(s.at.PublishPending()); err != nil {
		return nil
	}
	s.log.Warn("finishing the publication a run left unfinished")
	sec.publicStale = true
	return s.syncModel(ctx, sec)
}

// syncModel publishes the state as it is now: the records always; the
// read model when its latest_ tables do not hold the state's latest
// complete snapshot (built from the snapshot's DuckDB file in staging, or
// from its Parquet), or when its views are not the ones it must have (a
// copy of it with them).
func (s *Store) syncModel(ctx context.Context, sec *Section) error {
	db := sec.DB()
	if err := s.buildRecords(ctx, sec); err != nil {
		return err
	}
	var latest string
	err := db.QueryRowContext(ctx, "SELECT id FROM latest_snapshot").Scan(&latest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	m := s.model()
	held, views, err := m.Info(ctx, db, sec.built)
	var want string
	if err == nil && held == latest {
		if want, err = m.ViewsKey(ctx, db); err != nil {
			return err
		}
	}
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		s.log.Warn("the read model's master cannot be read; building it anew", "error", err)
	case err != nil:
	case held != latest:
	case views == want:
		return nil // the records are all that changed
	case sec.built != "":
		return s.publishModel(ctx, sec, sec.built, held)
	default:
		next := m.Next()
		if err := state.CopyFile(s.at.Master(), next, false); err != nil { // private: the public copy is made durable
			return err
		}
		return s.publishModel(ctx, sec, next, held)
	}
	if latest == "" {
		next := m.Next()
		if err := m.Empty(ctx, db, next); err != nil {
			return err
		}
		return s.publishModel(ctx, sec, next, "")
	}
	return s.modelOf(ctx, sec, latest)
}

// buildRecords writes the next generation of the records from the state
// and the journal (runrec.Records.Write), to be shown once section sec
// commits (showRecords).
func (s *Store) buildRecords(ctx context.Context, sec *Section) error {
	s.dropRecords(sec)
	cur, err := s.records.Current()
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(filepath.Base(cur))
	if err != nil {
		return fmt.Errorf("records: %s is not a generation", cur)
	}
	next := s.records.Gen(n + 1)
	os.RemoveAll(next)
	if err := os.MkdirAll(next, 0o755); err != nil {
		return fmt.Errorf("records: %w", err)
	}
	sec.recordsNext = next
	if err := s.recs.Write(ctx, sec.DB(), cur, next); err != nil {
		s.dropRecords(sec)
		return fmt.Errorf("records: %w", err)
	}
	state.SyncDir(next)
	return nil
}

// showRecords points the records' link at the generation built, and
// removes the others.
func (s *Store) showRecords(sec *Section) error {
	next := sec.recordsNext
	sec.recordsNext = ""
	if next == "" {
		return nil
	}
	if err := s.records.Point(next); err != nil {
		return err
	}
	s.records.RemoveOthers(next)
	return nil
}

// dropRecords removes a generation built and not shown.
func (s *Store) dropRecords(sec *Section) {
	if sec.recordsNext != "" {
		os.RemoveAll(sec.recordsNext)
		sec.recordsNext = ""
	}
}
