package modelfile

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/snapshot/history"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// The read model's views: over the records, and over the Parquet trees
// (every snapshot of a table). Binding a view over a tree lists every
// partition kept (and, read by name, opens every file's footer), so a
// store of a year's snapshots paid that at each publish. The views are
// therefore kept bound in a template, DIR/.billsnap/views.duckdb, that a
// run's DuckDB file starts as (StartFromTemplate); a publish whose views
// are the template's binds none of them. A model and the template name their
// views by a key (billsnap_model's 'views'): the statements, and what
// their binding depends on (the columns of every table, and those of the
// snapshots kept).

// ViewsKey is the key of the views a model must have now; q is the
// state, in a section.
func (s Model) ViewsKey(ctx context.Context, q state.Querier) (string, error) {
	want, err := s.views(ctx, q)
	return want.key, err
}

// viewSet is the views a model must have, but latest_snapshot.
type viewSet struct {
	stmts []string
	key   string
}

// views are the views a model must have now; q is the state, in a
// section.
func (s Model) views(ctx context.Context, q state.Querier) (viewSet, error) {
	stmts := s.Records.Views(absolute(s.RecordsLink))
	keyed := slices.Clone(stmts)
	columns, err := keptColumns(ctx, q, s.Trees)
	if err != nil {
		return viewSet{}, err
	}
	for _, tr := range s.Trees {
		kept := columns[tr.Status]
		for _, t := range s.Tables {
			stmts = append(stmts, fmt.Sprintf("CREATE OR REPLACE VIEW %s%s AS %s", tr.Prefix, t.Name, labelled(t, everySnapshot(tr, t, kept.byName(t.Name)))))
			keyed = append(keyed, stmts[len(stmts)-1], columnList(t), kept.lists[t.Name])
		}
	}
	// history's views read the current versions through the tree's views
	rest := append(history.Views(absolute(s.RecordsLink), s.Tables, treeRows), dictionary(s.Tables)...)
	stmts = append(stmts, rest...)
	keyed = append(keyed, rest...)
	return viewSet{stmts: stmts, key: digest(keyed)}, nil
}

// digest names a list of statements in a few bytes.
func digest(stmts []string) string {
	sum := sha256.Sum256([]byte(strings.Join(stmts, ";\n")))
	return hex.EncodeToString(sum[:])
}

// fillModel writes the model attached on conn: its views (none when it
// has the views it must have: a run's DuckDB file that started as the
// template) and the snapshot its latest_ tables hold; it returns the key
// of its views. The template is made anew when the model's views had to
// be though the public model has them: views the same over two publishes.
// (Views that change at a publish — a store's first, or the first after
// the fields key changed — may change again at the next; the template
// would be written for nothing.) A template that cannot be saved costs
// the next publish the views' binding, nothing else.
func (s Model) fillModel(ctx context.Context, conn *sql.Conn, latest string) (string, error) {
	want, err := s.views(ctx, conn)
	if err != nil {
		return "", err
	}
	have, err := viewsKey(ctx, conn, modelAlias)
	if err != nil {
		s.Log.Warn("the read model's views are written again", "error", err)
	}
	stmts := []string{"USE " + modelAlias}
	if have != want.key {
		stmts = append(stmts, want.stmts...)
	}
	stmts = append(stmts, latestView(latest), modelInfoSQL(latest, want.key), "USE "+state.AttachedAs)
	if err := fillIn(ctx, conn, modelAlias, stmts); err != nil {
		return "", err
	}
	if held, err := s.Held(""); have != want.key && err == nil && held.Views == want.key {
		if err := s.saveTemplate(ctx, conn, want); err != nil {
			s.Log.Warn("the next export will bind the read model's views again", "error", err)
		}
	}
	return want.key, nil
}

// viewsKey is the key of the views of the model attached on conn as
// alias: "" when it has none (no billsnap_model, or no 'views' in it).
func viewsKey(ctx context.Context, conn *sql.Conn, alias string) (string, error) {
	var n int
	err := conn.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'main' AND table_name = 'billsnap_model'",
		alias).Scan(&n)
	var key string
	if err == nil && n > 0 {
		err = conn.QueryRowContext(ctx, "SELECT coalesce(max(value), '') FROM "+alias+".billsnap_model WHERE key = 'views'").Scan(&key)
	}
	if err != nil {
		return "", fmt.Errorf("read model: the key of the views of %s: %w", alias, err)
	}
	return key, nil
}

// modelInfoSQL writes billsnap_model: the snapshot the latest_ tables
// hold and the key of the views.
func modelInfoSQL(latest, key string) string {
	return fmt.Sprintf("CREATE OR REPLACE TABLE billsnap_model AS SELECT * FROM (VALUES ('latest', %s), ('views', %s)) AS m(key, value)",
		state.SQLString(latest), state.SQLString(key))
}

// templateAlias is the name the template is attached under while it is
// made.
const templateAlias = "views_next"

// saveTemplate makes the template anew: empty latest_ tables (which the
// views of an empty tree read) and the views want, bound, written beside
// it and renamed over it. conn is on the state, in a section.
func (s Model) saveTemplate(ctx context.Context, conn *sql.Conn, want viewSet) error {
	tmp := s.At.ViewsTemplate() + ".next"
	os.Remove(tmp)
	os.Remove(tmp + ".wal")
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s", state.SQLString(tmp), templateAlias)); err != nil {
		return fmt.Errorf("the views' template: %w", err)
	}
	stmts := []string{"USE " + templateAlias}
	for _, t := range s.Tables {
		stmts = append(stmts, t.CreateSQL("latest_"+t.Name))
	}
	stmts = append(append(stmts, want.stmts...), modelInfoSQL("", want.key), "USE "+state.AttachedAs)
	err := fillIn(ctx, conn, templateAlias, stmts)
	if _, derr := conn.ExecContext(context.WithoutCancel(ctx), "USE "+state.AttachedAs+"; DETACH DATABASE IF EXISTS "+templateAlias); err == nil {
		err = derr
	}
	if err == nil {
		err = fileutil.SyncFile(tmp)
	}
	if err == nil {
		err = os.Rename(tmp, s.At.ViewsTemplate())
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("the views' template: %w", err)
	}
	return nil
}

// StartFromTemplate makes path, a run's DuckDB file, a copy of the
// template when there is one (whose latest_ tables the run makes anew,
// with its own columns); it tells whether it did.
func (s Model) StartFromTemplate(path string) (bool, error) {
	err := fileutil.CopyFile(s.At.ViewsTemplate(), path, false)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// everySnapshot is the relation of every snapshot of table t in tree tr that
// the records list as the tree's status: a view over its Parquet files through the
// tree's link, so that a query sees a snapshot only once every table of
// it is in the tree, and none that retention is taking out; the empty
// latest_ table when the tree has none. Its files are read by name when
// byName is set (parquetRelation), else by position.
func everySnapshot(tr ParquetTree, t catalog.Table, byName bool) string {
	glob := filepath.Join(absolute(tr.Link), t.Name, "*", "*.parquet")
	if !hasParquet(filepath.Dir(filepath.Dir(glob))) {
		return fmt.Sprintf("SELECT *, NULL::JSON AS _raw FROM latest_%s WHERE false", t.Name)
	}
	return fmt.Sprintf("%s\n\t\tWHERE %s IN (SELECT id FROM snapshots WHERE status = %s)", readParquet(glob, byName, "JSON"), tree.PartitionKey, state.SQLString(tr.Status))
}

// hasParquet tells whether a partition of the table directory dir holds a
// Parquet file, looking no further than the first that does: the
// partitions are read a few at a time, in the directory's order, not
// listed and sorted whole.
func hasParquet(dir string) bool {
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer d.Close()
	for {
		parts, err := d.ReadDir(8)
		for _, p := range parts {
			if files, _ := filepath.Glob(filepath.Join(dir, p.Name(), "*.parquet")); len(files) > 0 {
				return true
			}
		}
		if err != nil {
			return false
		}
	}
}

// ParquetRelation reads the Parquet files of glob as the latest_ tables
// have their rows: the snapshot's ID (from the partition directory) first,
// columns by name (a column the configuration added later is NULL in
// older snapshots), _raw as JSON. DuckDB reads every key=value directory
// of a path as a Hive partition: those above the tree (an output
// directory under /data/env=prod/) are left out.
func ParquetRelation(glob string) string { return readParquet(glob, true, "JSON") }

// ParquetText is ParquetRelation with _raw the text the files hold
// (VARCHAR), for a reader that hashes it or reads a few of its members:
// casting every record to JSON parses it, which cost about six times the
// hash of the text (hash(_raw) 78 ms against 518 ms for 98,774 charges).
func ParquetText(glob string) string { return readParquet(glob, true, "VARCHAR") }

// readParquet is ParquetRelation, reading the files' columns by name
// when byName is set and by position (the first file's) when not: for
// files that all have the same columns, whose footers DuckDB then need
// not all read to bind the relation.
func readParquet(glob string, byName bool, raw string) string {
	exclude := []string{state.SQLString(tree.PartitionKey), "'_raw'"}
	for _, dir := range strings.Split(filepath.Dir(filepath.Dir(filepath.Dir(glob))), string(filepath.Separator)) {
		if k, _, ok := strings.Cut(dir, "="); ok && k != "" {
			exclude = append(exclude, state.SQLString(k))
		}
	}
	return fmt.Sprintf(`SELECT %[2]s, COLUMNS(c -> NOT list_contains([%[3]s], c)), CAST(_raw AS %[5]s) AS _raw
		FROM read_parquet(%[1]s, hive_partitioning = true, hive_types = {'%[2]s': VARCHAR}, union_by_name = %[4]t)`,
		state.SQLString(glob), tree.PartitionKey, strings.Join(exclude, ", "), byName, raw)
}

func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// latestView is the statement of the view latest_snapshot: the snapshot
// the model's latest_ tables hold, so that a session that keeps the file
// open sees the two agree.
func latestView(latest string) string {
	return "CREATE OR REPLACE VIEW latest_snapshot AS SELECT * FROM snapshots WHERE id = " + state.SQLString(latest)
}
