package migrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// A store of an earlier billsnap (schema version 1) held every snapshot's
// rows, the runs and the state in one DuckDB file, the file readers open;
// the store adopts it once, when it is opened. These read what it held,
// the file attached as OldAlias.

// OldAlias is the name the adopted database is attached under.
const OldAlias = "old_store"

// modelAlias is the name the model being built is attached under.
const modelAlias = "model_next"

// CopyStateTables makes the state's tables in the database conn uses and
// copies into it those of tables the store attached as OldAlias has: an
// old store's tables, or a read model's views over the records.
func CopyStateTables(ctx context.Context, conn *sql.Conn, tables []string) error {
	if _, err := conn.ExecContext(ctx, StateSQL); err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_catalog = ? AND table_schema = 'main' AND list_contains(?, table_name)`, OldAlias, tables)
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
		q := fmt.Sprintf("CREATE OR REPLACE TABLE %s.%s AS SELECT * FROM %s.%s", state.AttachedAs, t, OldAlias, t)
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("copying %s: %w", t, err)
		}
	}
	_, err = conn.ExecContext(ctx, "UPDATE billsnap_meta SET value = ? WHERE key = 'schema_version'", SchemaVersion)
	return err
}

// CopyLatest copies snapshot latest's rows of tables of the old store
// into the latest_ tables of the model file at path.
func CopyLatest(ctx context.Context, conn *sql.Conn, path, latest string, tables []catalog.Table) error {
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s", state.SQLString(path), modelAlias)); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+modelAlias)
	for _, t := range tables {
		q := fmt.Sprintf("INSERT INTO %s.latest_%s BY NAME SELECT * EXCLUDE (_raw) FROM %s.%s WHERE snapshot_id = ?", modelAlias, t.Name, OldAlias, t.Name)
		if _, err := conn.ExecContext(ctx, q, latest); err != nil {
			return fmt.Errorf("copying the latest %s: %w", t.Name, err)
		}
	}
	_, err := conn.ExecContext(ctx, "CHECKPOINT "+modelAlias)
	return err
}

// ExportIncomplete writes incomplete snapshot id's rows of tables of the
// old store as Parquet under staged, a directory per table, as an export
// stages them.
func ExportIncomplete(ctx context.Context, conn *sql.Conn, id, staged string, tables []catalog.Table) error {
	for _, t := range tables {
		dir := filepath.Join(staged, t.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		q := fmt.Sprintf("COPY (SELECT * EXCLUDE (snapshot_id) FROM %s.%s WHERE snapshot_id = ?) TO %s (FORMAT PARQUET)",
			OldAlias, t.Name, state.SQLString(filepath.Join(dir, "part-00000.parquet")))
		if _, err := conn.ExecContext(ctx, q, id); err != nil {
			return fmt.Errorf("moving the incomplete snapshot %s's %s to Parquet: %w", id, t.Name, err)
		}
	}
	return nil
}

// MoveRuns writes the old store's runs table to the journal in dir.
func MoveRuns(ctx context.Context, conn *sql.Conn, dir string) error {
	var has bool
	if err := conn.QueryRowContext(ctx, `SELECT count(*) > 0 FROM information_schema.tables
		WHERE table_catalog = ? AND table_name = 'runs'`, OldAlias).Scan(&has); err != nil || !has {
		return err
	}
	rows, err := conn.QueryContext(ctx, `SELECT id, started, coalesce(finished, started), job, schedule, period, status,
		coalesce(error, ''), coalesce(snapshot_id, ''), coalesce(exit_code, 0), pid FROM `+OldAlias+`.runs`)
	if err != nil {
		return err
	}
	defer rows.Close()
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

// RenameOldPartitions gives every partition of tree t's current
// generation named with the old key ("snapshot=") the key readers filter
// on (tree.PartitionKey), each in one rename: the Parquet tree of a store
// of an earlier billsnap, migrated when it is opened.
func RenameOldPartitions(t tree.Tree) error {
	cur, err := t.Current()
	if err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(cur, "*", oldPartitionKey+"=*"))
	var dirs []string
	for _, d := range old {
		id := strings.TrimPrefix(filepath.Base(d), oldPartitionKey+"=")
		if err := os.Rename(d, filepath.Join(filepath.Dir(d), tree.Partition(id))); err != nil {
			return fmt.Errorf("parquet tree: renaming %s: %w", d, err)
		}
		dirs = append(dirs, filepath.Dir(d))
	}
	fileutil.SyncDirs(dirs)
	return nil
}

// oldPartitionKey is the partition key of a store of an earlier billsnap,
// which was not the DuckDB column's name.
const oldPartitionKey = "snapshot"
