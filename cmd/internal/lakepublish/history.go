//go:build lake

package lakepublish

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/history"
	"github.com/billsnap/billsnap/snapshot/state"
)

// HistoryFieldIDs are the field IDs of the four columns a history table
// adds to its table's: above any the store's catalogue gives a column (it
// numbers a table's columns from 1 up, one more for each column added),
// and the same in every history table.
var HistoryFieldIDs = map[string]int{"valid_from": 1_000_001, "valid_to": 1_000_002, "snapshot_from": 1_000_003, "snapshot_to": 1_000_004}

// publishHistory commits the history of the store's latest complete
// snapshot id to the catalog's history tables, <table>_history: for each
// table whose history ends at id (its last step, history_steps), a file
// of the versions closed since the snapshot its history table holds, and
// one of the versions current after id, written with field IDs from the
// read model's <table>_history, uploaded into the table's data folder,
// then committed. A table whose history table holds id already is left:
// run again, it does nothing; cut short, it is done again, its files
// uploaded anew (those of the attempt cut short are the next prune's).
func publishHistory(ctx context.Context, l *objects.Lake, cat lake.Catalog, store *snapshot.Store, cfg config.Config, id string, log *slog.Logger) error {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return err
	}
	defer db.Close()
	heads, err := history.Heads(ctx, db)
	if err != nil {
		return err
	}
	local, err := store.Files(id)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "billsnap-history-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	start, n := time.Now(), 0
	for _, t := range store.Tables() {
		i := slices.IndexFunc(local, func(f lake.Local) bool { return f.Table == t.Name })
		if heads[t.Name].Snapshot != id || i < 0 {
			continue
		}
		h := historyTable{name: t.Name, id: id, tree: local[i].Path, dir: filepath.Join(tmp, t.Name)}
		done, err := h.publish(ctx, db, l, cat)
		if err != nil {
			return fmt.Errorf("committing the history of %s to snapshot %s: %w", t.Name, id, err)
		}
		if done {
			n++
		}
	}
	if n > 0 {
		log.Info("committed history to the Iceberg catalog", "snapshot", id, "tables", n, "seconds", time.Since(start).Seconds())
	}
	return nil
}

// historyTable is the history of one table, to commit at snapshot id:
// tree is one of id's Parquet files of the table (its columns' field
// IDs), dir a folder for the files written.
type historyTable struct {
	name, id, tree, dir string
}

// publish writes, uploads and commits h's files, unless the history
// table holds h.id already; it tells whether it committed.
func (h historyTable) publish(ctx context.Context, db *sql.DB, l *objects.Lake, cat lake.Catalog) (bool, error) {
	name := h.name + lake.HistorySuffix
	held, err := cat.Holds(ctx, name)
	if err != nil || held >= h.id {
		return false, err
	}
	paths, err := h.write(ctx, db, held)
	if err != nil {
		return false, err
	}
	current := paths[len(paths)-1]
	dir, err := cat.DataPath(ctx, name, current)
	if err != nil {
		return false, err
	}
	urls := make([]string, len(paths))
	for i, p := range paths {
		kind := strings.TrimSuffix(filepath.Base(p), ".parquet")
		f, err := l.Add(ctx, dir, h.id, kind, p)
		if err != nil {
			return false, err
		}
		urls[i] = lake.FileURL(lake.Root(l.URL()), f.Key)
	}
	crashpoint.Hit("lake.history")
	return true, cat.CommitHistory(ctx, name, h.id, urls, current)
}

// write writes, into h.dir, the versions closed after held up to h.id
// (when there are any: versions.parquet) and the versions current after
// h.id (current.parquet, last), from the read model db's <table>_history.
func (h historyTable) write(ctx context.Context, db *sql.DB, held string) ([]string, error) {
	cols, ids, err := h.columns(ctx, db)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return nil, err
	}
	from := fmt.Sprintf("SELECT %s FROM %s_history", strings.Join(cols, ", "), h.name)
	opts := fmt.Sprintf("(FORMAT parquet, FIELD_IDS {%s})", strings.Join(ids, ", "))
	versions := filepath.Join(h.dir, "versions.parquet")
	closed := fmt.Sprintf("%s WHERE snapshot_to > %s AND snapshot_to <= %s", from, state.SQLString(held), state.SQLString(h.id))
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM ("+closed+")").Scan(&n); err != nil {
		return nil, err
	}
	var out []string
	if n > 0 {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (%s ORDER BY id, valid_from) TO %s %s", closed, state.SQLString(versions), opts)); err != nil {
			return nil, err
		}
		out = append(out, versions)
	}
	current := filepath.Join(h.dir, strings.TrimSuffix(lake.CurrentPrefix, "-")+".parquet")
	if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (%s WHERE valid_to IS NULL ORDER BY id) TO %s %s", from, state.SQLString(current), opts)); err != nil {
		return nil, err
	}
	return append(out, current), nil
}

// columns are the select list of h's history table, in the read
// model's order, and the field ID of each (name: id, as COPY's FIELD_IDS
// takes them): the table's stored columns, with the IDs its Parquet
// files carry (the catalogue's, field_ids, for a column id's files lack),
// _raw as text, and the four of history (HistoryFieldIDs). Columns the
// read model derives (a code's label) are left out, as the lake's tables
// have them.
func (h historyTable) columns(ctx context.Context, db *sql.DB) (cols, ids []string, err error) {
	known, err := h.fieldIDs(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM %s_history)", h.name))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, nil, err
		}
		id, ok := known[name]
		if !ok {
			continue
		}
		col := state.QuoteIdent(name)
		if typ == "JSON" {
			col = "CAST(" + col + " AS VARCHAR) AS " + col
		}
		cols = append(cols, col)
		ids = append(ids, fmt.Sprintf("%s: %d", state.SQLString(name), id))
	}
	return cols, ids, rows.Err()
}

// fieldIDs are the field IDs of h's history table's columns, by name:
// those of the catalogue (field_ids: the latest of each name), then
// those h.tree carries, then history's own.
func (h historyTable) fieldIDs(ctx context.Context, db *sql.DB) (map[string]int, error) {
	out := map[string]int{}
	queries := []struct{ q, arg string }{
		{"SELECT column_name, arg_max(field_id, field_id) FROM field_ids WHERE table_name = ? GROUP BY column_name", h.name},
		{"SELECT name, field_id FROM parquet_schema(?) WHERE field_id IS NOT NULL AND field_id > 0", h.tree},
	}
	for _, q := range queries {
		if err := scanIDs(ctx, db, q.q, q.arg, out); err != nil {
			return nil, err
		}
	}
	for k, v := range HistoryFieldIDs {
		out[k] = v
	}
	return out, nil
}

// scanIDs adds to out the (name, field ID) rows of query q with arg.
func scanIDs(ctx context.Context, db *sql.DB, q, arg string, out map[string]int) error {
	rows, err := db.QueryContext(ctx, q, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var id int
		if err := rows.Scan(&name, &id); err != nil {
			return err
		}
		out[name] = id
	}
	return rows.Err()
}
