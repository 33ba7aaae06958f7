package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"

	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// adopt makes billsnap's state when a directory has a published database
// but no state, with the export lock held:
//   - a store of an earlier billsnap (schema version 1), where one DuckDB
//     file held every snapshot's rows, the runs and the state, is migrated:
//     its state tables become the state, its latest complete snapshot the
//     read model, its incomplete snapshots' rows the incomplete tree's
//     Parquet, its runs the journal; the published file is replaced by the
//     read model;
//   - a read model whose state is gone (a crash while adopting, or state
//     removed by hand) gives the state back from its copies.
//
// The state is built beside its place and renamed into it last, so a
// crash before leaves the directory to adopt again.
func (s *Store) adopt(ctx context.Context) error {
	if _, err := os.Stat(s.at.State()); err == nil {
		return nil
	}
	if _, err := os.Stat(s.publicPath); err != nil {
		return nil // a new store
	}
	// A reconcile may open the store as soon as the state is there: it
	// waits for this lock until the adopted store is published.
	lock, err := s.stateFile().TakeLock()
	if err != nil {
		return err
	}
	defer lock.Close()
	tmp := s.at.State() + ".adopting"
	os.Remove(tmp)
	os.Remove(tmp + ".wal")
	db, err := state.OpenFile(tmp, s.duck.settings(), state.BlockSize)
	if err != nil {
		return err
	}
	// The adopted state is not a section of one (there is none yet to
	// copy), but what it builds is shown as a section's is.
	sec := &Section{st: &state.Section{DB: db}}
	err = s.adoptInto(ctx, sec)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("adopting %s: %w", s.publicPath, err)
	}
	if err := s.markPending(sec); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.at.State()); err != nil {
		return err
	}
	state.SyncDir(s.at.Private())
	return s.publishPending(sec)
}

// adoptInto fills sec's database, the state being built, from the
// published file.
func (s *Store) adoptInto(ctx context.Context, sec *Section) error {
	db := sec.DB()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (READ_ONLY)", state.SQLString(s.publicPath), migrate.OldAlias)); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+migrate.OldAlias)
	var version string
	if err := conn.QueryRowContext(ctx, "SELECT value FROM "+migrate.OldAlias+".billsnap_meta WHERE key = 'schema_version'").Scan(&version); err != nil {
		// A read model of this billsnap (whose state is gone) has no meta.
		if _, merr := conn.ExecContext(ctx, "SELECT count(*) FROM "+migrate.OldAlias+".billsnap_model"); merr != nil {
			return fmt.Errorf("it is not a billsnap store: %w", err)
		}
	}
	if err := migrate.CopyStateTables(ctx, conn, adoptedTables()); err != nil {
		return err
	}
	if version != "1" {
		s.log.Warn("billsnap's state was missing; taken back from the read model", "from", s.publicPath)
		return nil
	}
	s.log.Warn("migrating a store of an earlier billsnap: one DuckDB file becomes the read model, the state and the journal", "dir", s.at)
	return s.migrateData(ctx, conn, sec)
}

// adoptedTables are the tables an adopted store may hold: the state's,
// and the run records' (as tables or as a read model's views), which
// the first section makes files (migrate.UpgradeRunRecords).
func adoptedTables() []string {
	out := append([]string{"billsnap_meta"}, runrec.RecordTables()...)
	for _, k := range runrec.Kinds() {
		out = append(out, k.Name)
	}
	return out
}

// migrateData moves an old store's rows out of its one file: the runs to
// the journal, the incomplete snapshots to their tree, the latest complete
// snapshot into a new read model, published over the old file.
func (s *Store) migrateData(ctx context.Context, conn *sql.Conn, sec *Section) error {
	db := sec.DB()
	if err := renameOldPartitions(s.tree); err != nil {
		return err
	}
	if err := migrate.MoveRuns(ctx, conn, s.at.Runs()); err != nil {
		return err
	}
	incomplete, err := snapshotsWith(ctx, db, StatusIncomplete)
	if err != nil {
		return err
	}
	for id := range incomplete {
		if err := migrate.ExportIncomplete(ctx, conn, id, s.at.Staged(id), s.tables); err != nil {
			return err
		}
		if err := s.publishParquet(s.incomplete, id); err != nil {
			return err
		}
	}
	var latest string
	err = conn.QueryRowContext(ctx, "SELECT id FROM "+migrate.OldAlias+".snapshots WHERE status = 'complete' ORDER BY started DESC, id DESC LIMIT 1").Scan(&latest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	next := s.at.MasterNext()
	os.Remove(next)
	if err := s.model().Empty(ctx, db, next); err != nil {
		return err
	}
	if err := migrate.CopyLatest(ctx, conn, next, latest, s.tables); err != nil {
		return err
	}
	os.RemoveAll(s.at.Staging())
	if _, err := conn.ExecContext(ctx, "DETACH DATABASE "+migrate.OldAlias); err != nil {
		return err
	}
	if err := s.buildRecords(ctx, sec); err != nil {
		return err
	}
	return s.publishModel(ctx, sec, next, latest)
}
