package snapshot

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/journal"
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
	sec := &section{Section: &state.Section{DB: db}}
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

// oldAlias is the name the adopted database is attached under.
const oldAlias = "old_store"

// adoptInto fills sec's database, the state being built, from the
// published file.
func (s *Store) adoptInto(ctx context.Context, sec *section) error {
	db := sec.DB
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (READ_ONLY)", state.SQLString(s.publicPath), oldAlias)); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+oldAlias)
	var version string
	if err := conn.QueryRowContext(ctx, "SELECT value FROM "+oldAlias+".billsnap_meta WHERE key = 'schema_version'").Scan(&version); err != nil {
		// A read model of this billsnap (whose state is gone) has no meta.
		if _, merr := conn.ExecContext(ctx, "SELECT count(*) FROM "+oldAlias+".billsnap_model"); merr != nil {
			return fmt.Errorf("it is not a billsnap store: %w", err)
		}
	}
	if err := copyStateTables(ctx, conn); err != nil {
		return err
	}
	if version != "1" {
		s.log.Warn("billsnap's state was missing; taken back from the read model", "from", s.publicPath)
		return nil
	}
	s.log.Warn("migrating a store of an earlier billsnap: one DuckDB file becomes the read model, the state and the journal", "dir", s.at)
	return s.migrateData(ctx, conn, sec)
}

// copyStateTables copies the state's tables the attached store has: an
// old store's tables, or a read model's views over the records.
func copyStateTables(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, migrate.StateSQL); err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_catalog = ? AND table_schema = 'main' AND list_contains(?, table_name)`, oldAlias, adoptedTables())
	if err != nil {
		return err
	}
	var present []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		present = append(present, t)
	}
	rows.Close()
	for _, t := range present {
		q := fmt.Sprintf("CREATE OR REPLACE TABLE %s.%s AS SELECT * FROM %s.%s", state.AttachedAs, t, oldAlias, t)
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("copying %s: %w", t, err)
		}
	}
	_, err = conn.ExecContext(ctx, "UPDATE billsnap_meta SET value = ? WHERE key = 'schema_version'", migrate.SchemaVersion)
	return err
}

// adoptedTables are the tables an adopted store may hold: the state's,
// and the run records' (as tables or as a read model's views), which
// the first section makes files (runrec.Section.Upgrade).
func adoptedTables() []string {
	out := append([]string{"billsnap_meta"}, recordTables...)
	for _, k := range runrec.Kinds() {
		out = append(out, k.Name)
	}
	return out
}

// migrateData moves an old store's rows out of its one file: the runs to
// the journal, the incomplete snapshots to their tree, the latest complete
// snapshot into a new read model, published over the old file.
func (s *Store) migrateData(ctx context.Context, conn *sql.Conn, sec *section) error {
	db := sec.DB
	if err := s.tree.renameOldPartitions(); err != nil {
		return err
	}
	if err := s.migrateRuns(ctx, conn); err != nil {
		return err
	}
	incomplete, err := snapshotsWith(ctx, db, StatusIncomplete)
	if err != nil {
		return err
	}
	for id := range incomplete {
		if err := s.exportOld(ctx, conn, id); err != nil {
			return err
		}
		if err := s.publishParquet(s.incomplete, id); err != nil {
			return err
		}
	}
	var latest string
	err = conn.QueryRowContext(ctx, "SELECT id FROM "+oldAlias+".snapshots WHERE status = 'complete' ORDER BY started DESC, id DESC LIMIT 1").Scan(&latest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	next := s.at.MasterNext()
	os.Remove(next)
	if err := s.emptyModel(ctx, db, next); err != nil {
		return err
	}
	if err := s.copyOldLatest(ctx, conn, next, latest); err != nil {
		return err
	}
	os.RemoveAll(s.at.Staging())
	if _, err := conn.ExecContext(ctx, "DETACH DATABASE "+oldAlias); err != nil {
		return err
	}
	if err := s.buildRecords(ctx, sec); err != nil {
		return err
	}
	return s.publishModel(ctx, sec, next, latest)
}

// copyOldLatest copies snapshot latest's rows of the old store into the
// model file at path.
func (s *Store) copyOldLatest(ctx context.Context, conn *sql.Conn, path, latest string) error {
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s", state.SQLString(path), modelAlias)); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+modelAlias)
	for _, t := range s.tables {
		q := fmt.Sprintf("INSERT INTO %s.latest_%s BY NAME SELECT * FROM %s.%s WHERE snapshot_id = ?", modelAlias, t.Name, oldAlias, t.Name)
		if _, err := conn.ExecContext(ctx, q, latest); err != nil {
			return fmt.Errorf("copying the latest %s: %w", t.Name, err)
		}
	}
	_, err := conn.ExecContext(ctx, "CHECKPOINT "+modelAlias)
	return err
}

// exportOld writes incomplete snapshot id's rows of the old store to
// staging as Parquet, a directory per table, for publishParquet.
func (s *Store) exportOld(ctx context.Context, conn *sql.Conn, id string) error {
	for _, t := range s.tables {
		dir := filepath.Join(s.at.Staged(id), t.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		q := fmt.Sprintf("COPY (SELECT * EXCLUDE (snapshot_id) FROM %s.%s WHERE snapshot_id = ?) TO %s (FORMAT PARQUET)",
			oldAlias, t.Name, state.SQLString(filepath.Join(dir, "part-00000.parquet")))
		if _, err := conn.ExecContext(ctx, q, id); err != nil {
			return fmt.Errorf("moving the incomplete snapshot %s's %s to Parquet: %w", id, t.Name, err)
		}
	}
	return nil
}

// migrateRuns writes the old store's runs table to the journal.
func (s *Store) migrateRuns(ctx context.Context, conn *sql.Conn) error {
	var has bool
	if err := conn.QueryRowContext(ctx, `SELECT count(*) > 0 FROM information_schema.tables
		WHERE table_catalog = ? AND table_name = 'runs'`, oldAlias).Scan(&has); err != nil || !has {
		return err
	}
	rows, err := conn.QueryContext(ctx, `SELECT id, started, coalesce(finished, started), job, schedule, period, status,
		coalesce(error, ''), coalesce(snapshot_id, ''), coalesce(exit_code, 0), pid FROM `+oldAlias+`.runs`)
	if err != nil {
		return err
	}
	defer rows.Close()
	dir := s.at.Runs()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for rows.Next() {
		var r journal.Run
		if err := rows.Scan(&r.ID, &r.Started, &r.Finished, &r.Job, &r.Schedule, &r.Period, &r.Status, &r.Error, &r.Snapshot, &r.ExitCode, &r.PID); err != nil {
			return err
		}
		if r.Status == journal.Running {
			r.Status, r.ExitCode, r.Error = journal.Killed, journal.KilledExitCode, "the process ended before the run did (found when the store was migrated)"
		}
		r.Alive = r.Finished
		if err := writeRun(dir, r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// writeRun writes a finished run's record to the journal in dir.
func writeRun(dir string, r journal.Run) error {
	r.Started, r.Finished, r.Alive = r.Started.UTC(), r.Finished.UTC(), r.Alive.UTC().Truncate(time.Microsecond)
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, r.ID+".json"), append(b, '\n'), 0o644)
}
