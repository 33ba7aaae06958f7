package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// Stepped tells whether the state q records snapshot's step.
func Stepped(ctx context.Context, q state.Querier, snapshot string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM history_steps WHERE snapshot = ?", snapshot).Scan(&n)
	return n > 0, err
}

// Record records steps in the state q, in the section that publishes
// their snapshot.
func Record(ctx context.Context, q state.Querier, steps []Step) error {
	for _, s := range steps {
		_, err := q.ExecContext(ctx, "INSERT OR REPLACE INTO history_steps VALUES (?, ?, ?, nullif(?, ''), ?, ?, ?)",
			s.To, s.Table, s.At, s.Previous, s.Inserted, s.Updated, s.Deleted)
		if err != nil {
			return fmt.Errorf("history: recording %s: %w", s, err)
		}
	}
	return nil
}

// stepsFile is where a run's staged steps are listed, beside their files.
const stepsFile = "steps.json"

// Stage lists steps taken into root, a run's staging of history, last:
// a staging without the list is taken again.
func Stage(root string, steps []Step) error {
	b, err := json.Marshal(steps)
	if err == nil {
		err = os.WriteFile(filepath.Join(root, stepsFile), b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
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

// Move moves the files of steps from staging root into history's root
// dest, each in one rename; a file already moved is left. It then
// removes each table's index files but those of the step and the one
// before it (a reader still on the model before may read that one).
func Move(root, dest string, steps []Step) error {
	var dirs []string
	for _, s := range steps {
		for _, kind := range Folders() {
			src, dst := File(root, kind, s.Table, s.To), File(dest, kind, s.Table, s.To)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.Rename(src, dst); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("history: %w", err)
			}
			dirs = append(dirs, filepath.Dir(dst))
		}
	}
	fileutil.SyncDirs(dirs)
	for _, s := range steps {
		RetireIndexes(dest, s)
	}
	return nil
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
// which glob them, bind on a store that has no step yet. conn is the
// state's, in a section.
func EnsureEmpty(ctx context.Context, conn *sql.Conn, root string, tables []catalog.Table) error {
	for _, t := range tables {
		for _, kind := range Folders() {
			path := filepath.Join(root, kind, t.Name, EmptyFile)
			if _, err := os.Stat(path); err == nil {
				continue
			}
			if err := writeEmpty(ctx, conn, t, kind, path); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
	}
	return nil
}

// writeEmpty writes at path the empty file of kind's folder of table t.
func writeEmpty(ctx context.Context, conn *sql.Conn, t catalog.Table, kind, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var q string
	switch kind {
	case Versions:
		tmp := "hist_empty_" + t.Name
		if _, err := conn.ExecContext(ctx, "DROP TABLE IF EXISTS temp."+tmp+"; "+strings.Replace(t.CreateSQL(tmp), "CREATE TABLE", "CREATE TEMP TABLE", 1)); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS temp."+tmp)
		q = "SELECT * EXCLUDE (snapshot_id), NULL::TIMESTAMPTZ AS valid_from, NULL::TIMESTAMPTZ AS valid_to, " +
			"NULL::VARCHAR AS snapshot_from, NULL::VARCHAR AS snapshot_to FROM temp." + tmp
	case Current:
		q = "SELECT NULL::VARCHAR AS id, NULL::UBIGINT AS row_hash, NULL::VARCHAR AS snapshot_from, NULL::TIMESTAMPTZ AS valid_from WHERE false"
	default:
		q = `SELECT NULL::VARCHAR AS "table", NULL::VARCHAR AS id, NULL::VARCHAR AS op, NULL::VARCHAR[] AS fields, NULL::VARCHAR AS from_snapshot,
			NULL::VARCHAR AS to_snapshot, NULL::TIMESTAMPTZ AS "at", NULL::JSON AS old_values, NULL::JSON AS new_values WHERE false`
	}
	return state.CopyTo(ctx, conn, q, path)
}
