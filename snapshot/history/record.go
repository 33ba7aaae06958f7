package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Head is the last step of a table: the snapshot whose rows are its
// current versions, and its time.
type Head struct {
	Snapshot string
	At       time.Time
}

// Heads are the last step of each table the state q records, by table.
func Heads(ctx context.Context, q state.Querier) (map[string]Head, error) {
	rows, err := q.QueryContext(ctx, `SELECT table_name, arg_max(snapshot, ("at", snapshot)), max("at") FROM history_steps GROUP BY table_name`)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	out := map[string]Head{}
	for rows.Next() {
		var t string
		var h Head
		if err := rows.Scan(&t, &h.Snapshot, &h.At); err != nil {
			return nil, err
		}
		out[t] = h
	}
	return out, rows.Err()
}

// Behind tells whether history is behind the state q's complete
// snapshots: it has no step (heads is empty) while the state has a
// complete snapshot, as a store written before history has. Its next
// complete snapshot steps every complete snapshot kept first.
func Behind(ctx context.Context, q state.Querier, heads map[string]Head) (bool, error) {
	if len(heads) > 0 {
		return false, nil
	}
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM snapshots WHERE status = 'complete'").Scan(&n)
	return n > 0, err
}

// Stepped tells whether the state q records snapshot's step.
func Stepped(ctx context.Context, q state.Querier, snapshot string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM history_steps WHERE snapshot = ?", snapshot).Scan(&n)
	return n > 0, err
}

// Record records steps in the state q, in the section that publishes
// their snapshot.
func Record(ctx context.Context, q state.Querier, steps []Step) error {
	if len(steps) == 0 {
		return nil
	}
	// One statement: each is parsed, planned and run on its own.
	rows := make([]string, len(steps))
	args := make([]any, 0, 7*len(steps))
	for i, s := range steps {
		rows[i] = "(?, ?, ?, nullif(?, ''), ?, ?, ?)"
		args = append(args, s.To, s.Table, s.At, s.Previous, s.Inserted, s.Updated, s.Deleted)
	}
	if _, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO history_steps (snapshot, table_name, "at", previous, inserted, updated, deleted) VALUES `+strings.Join(rows, ", "), args...); err != nil {
		return fmt.Errorf("history: recording the steps to %s: %w", steps[0].To, err)
	}
	return nil
}

// Prunable are the snapshots whose steps were taken before before, but
// those of each table's last step and of the step before it, oldest
// first.
func Prunable(ctx context.Context, q state.Querier, before time.Time) ([]string, error) {
	return state.Strings(ctx, q, `WITH heads AS (SELECT table_name, arg_max(snapshot, ("at", snapshot)) AS head FROM history_steps GROUP BY table_name),
			kept AS (SELECT head AS snapshot FROM heads UNION SELECT s.previous FROM history_steps s JOIN heads h ON s.table_name = h.table_name AND s.snapshot = h.head)
		SELECT snapshot FROM history_steps WHERE "at" < ? AND snapshot NOT IN (SELECT snapshot FROM kept WHERE snapshot IS NOT NULL)
		GROUP BY snapshot ORDER BY min("at"), snapshot`, before)
}

// Forget deletes the steps of snapshots ids from the state q.
func Forget(ctx context.Context, q state.Querier, ids []string) error {
	_, err := q.ExecContext(ctx, "DELETE FROM history_steps WHERE list_contains(?::VARCHAR[], snapshot)", ids)
	return err
}

// stepsFile is where a run's staged steps are listed, beside their files.
const stepsFile = "steps.json"

// Stage makes the files of steps durable, with the folders that name
// them, then lists the steps in root, a run's staging, last: a run
// without the list has its steps taken again when it is finished.
func Stage(root string, steps []Step) error {
	err := Sync(steps)
	var b []byte
	if err == nil {
		b, err = json.Marshal(steps)
	}
	if err == nil {
		err = os.MkdirAll(root, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(root, stepsFile), b, 0o644)
	}
	if err == nil {
		err = fileutil.SyncFile(filepath.Join(root, stepsFile))
	}
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Sync makes the files of steps durable, and the folders that name
// them, several at once.
func Sync(steps []Step) error {
	var files, dirs []string
	for _, s := range steps {
		for _, f := range s.Files {
			files = append(files, f)
			if d := filepath.Dir(f); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	if err := fileutil.SyncFiles(files); err != nil {
		return err
	}
	fileutil.SyncDirs(dirs)
	return nil
}

// Staged reads the steps staged under root; none when it lists none.
func Staged(root string) ([]Step, error) {
	b, err := os.ReadFile(filepath.Join(root, stepsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var steps []Step
	if err == nil {
		err = json.Unmarshal(b, &steps)
	}
	if err != nil {
		return nil, fmt.Errorf("history: the staged steps: %w", err)
	}
	return steps, nil
}

// Remove removes every file of snapshot's steps under root: of a
// snapshot that failed before the state recorded them.
func Remove(root string, tables []catalog.Table, snapshot string) {
	for _, t := range tables {
		for _, kind := range Folders() {
			os.Remove(File(root, kind, t.Name, snapshot))
		}
	}
}

// RetireIndexes removes table's index files under root other than those
// of step s and of the step before it.
func RetireIndexes(root string, s Step) {
	dir := filepath.Join(root, Current, s.Table)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".parquet")
		if e.Name() != EmptyFile && name != s.To && name != s.Previous {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// EnsureEmpty gives each table's folders under root their empty file
// (EmptyFile), where they have none, so that the read model's views,
// which glob them, bind on a store that has no step yet. The empty files
// of a kind are one file, written once under root's empty/ and linked
// into each table's folder: a view reads its typed columns from the
// table itself (Relation), so the versions' empty file holds only what
// every table's has. conn is the state's, in a section.
func EnsureEmpty(ctx context.Context, conn *sql.Conn, root string, tables []catalog.Table) error {
	var missing []string
	for _, t := range tables {
		for _, kind := range Folders() {
			if path := filepath.Join(root, kind, t.Name, EmptyFile); !exists(path) {
				missing = append(missing, path)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := writeEmpties(ctx, conn, filepath.Join(root, "empty")); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	var dirs []string
	for _, path := range missing {
		kind := filepath.Base(filepath.Dir(filepath.Dir(path)))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if err := os.Link(filepath.Join(root, "empty", kind+".parquet"), path); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("history: %w", err)
		}
		dirs = append(dirs, filepath.Dir(path))
	}
	fileutil.SyncDirs(dirs)
	return nil
}

// emptyQueries are the columns of each kind's files that every table's
// have, no rows.
var emptyQueries = map[string]string{
	Versions: `SELECT NULL::VARCHAR AS id, NULL::JSON AS _raw, NULL::TIMESTAMPTZ AS valid_from, NULL::TIMESTAMPTZ AS valid_to,
		NULL::VARCHAR AS snapshot_from, NULL::VARCHAR AS snapshot_to WHERE false`,
	Current: "SELECT NULL::VARCHAR AS id, NULL::UBIGINT AS row_hash, NULL::VARCHAR AS snapshot_from, NULL::TIMESTAMPTZ AS valid_from WHERE false",
	Changes: `SELECT NULL::VARCHAR AS "table", NULL::VARCHAR AS id, NULL::VARCHAR AS op, NULL::VARCHAR[] AS fields, NULL::VARCHAR AS from_snapshot,
		NULL::VARCHAR AS to_snapshot, NULL::TIMESTAMPTZ AS "at", NULL::JSON AS old_values, NULL::JSON AS new_values WHERE false`,
}

// writeEmpties writes each kind's empty file into dir, where it has
// none: written beside, synced and renamed.
func writeEmpties(ctx context.Context, conn *sql.Conn, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, kind := range Folders() {
		if path := filepath.Join(dir, kind+".parquet"); !exists(path) {
			if err := state.CopyTo(ctx, conn, emptyQueries[kind], path); err != nil {
				return err
			}
		}
	}
	fileutil.SyncDir(dir)
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
