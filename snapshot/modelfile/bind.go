package modelfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// PublicCopy is a copy of the public file that reconcile reads the latest
// snapshot from (CopyOfPublic): its path, and the snapshot its latest_
// tables hold. The zero value is none.
type PublicCopy struct{ Path, Latest string }

// CopyOfPublic copies the public file to path when it is the file the
// last publish showed, as model.json's stamp says before the copy and
// after it, so that a file a reader wrote is never taken; it returns what
// the copy holds. It returns the zero PublicCopy, and leaves no file, when
// the public file cannot be taken (then reconcile reads the Parquet, a few
// times slower on the large tables). billsnap never opens the public file
// itself: a reader may hold it for writing, and DuckDB's lock would then
// refuse billsnap, or billsnap's refuse the reader.
func (s Model) CopyOfPublic(path string) PublicCopy {
	info, err := s.Held("")
	if err != nil || info.File == nil || info.Latest == "" {
		return PublicCopy{}
	}
	same := func() bool {
		st, err := stampOf(s.Public)
		return err == nil && *st == *info.File
	}
	if !same() {
		s.Log.Info("the read model was written since it was published; reconcile reads the Parquet")
		return PublicCopy{}
	}
	if err := fileutil.CopyFile(s.Public, path, false); err != nil || !same() {
		os.Remove(path)
		return PublicCopy{}
	}
	return PublicCopy{Path: path, Latest: info.Latest}
}

// publicAlias is the name a copy of the public file is attached under.
const publicAlias = "model"

// Bind makes the views cur.<table> and prev.<table> on conn show the
// snapshots cur and prev, for reconcile, with the latest_ tables'
// columns, and cur.raw_<table> and prev.raw_<table> their rows with _raw:
// the snapshot pub holds from pub (attached read-only, and its file
// removed once attached), any other from its Parquet, in the tree of
// complete snapshots or of incomplete ones. prev "" gives empty views. It
// makes prev.stored_findings and cur.stored_rechecks too
// (runrec.Files.Bind), the run records reconcile reads, and returns the
// files of prev's findings it bound. cur and prev are databases in
// memory; conn is a connection of the state (a Reading's, whose end
// detaches them).
func (s Model) Bind(ctx context.Context, conn *sql.Conn, cur, prev string, pub PublicCopy) ([]runrec.File, error) {
	if pub.Path != "" {
		_, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (READ_ONLY)", state.SQLString(pub.Path), publicAlias))
		os.Remove(pub.Path) // DuckDB keeps the file it opened
		if err != nil {
			s.Log.Warn("the copy of the read model cannot be read; reconcile reads the Parquet", "error", err)
			pub = PublicCopy{}
		}
	}
	for _, schema := range []struct{ name, id string }{{"cur", cur}, {"prev", prev}} {
		if _, err := conn.ExecContext(ctx, "ATTACH IF NOT EXISTS ':memory:' AS "+schema.name); err != nil {
			return nil, err
		}
		for _, t := range s.Tables {
			typed, raw, err := s.relations(t, schema.id, pub.Latest)
			if err != nil {
				return nil, err
			}
			for _, v := range [][2]string{{t.Name, typed}, {"raw_" + t.Name, raw}} {
				q := fmt.Sprintf("CREATE OR REPLACE VIEW %s.%s AS %s", schema.name, v[0], v[1])
				if _, err := conn.ExecContext(ctx, q); err != nil {
					return nil, fmt.Errorf("binding %s.%s to snapshot %s: %w", schema.name, v[0], schema.id, err)
				}
			}
		}
	}
	return s.Runs.Bind(ctx, conn, cur, prev)
}

// relations are the relations of table t's rows of snapshot id: with
// the latest_ tables' columns, and with _raw too. latest is the snapshot
// the attached copy of the public file holds ("" for none).
func (s Model) relations(t catalog.Table, id, latest string) (typed, raw string, err error) {
	if id == "" {
		return fmt.Sprintf("SELECT * FROM cur.%s WHERE false", t.Name), fmt.Sprintf("SELECT * FROM cur.raw_%s WHERE false", t.Name), nil
	}
	for _, tr := range s.Trees {
		dir := filepath.Join(absolute(tr.Link), t.Name, tree.Partition(id))
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		raw = ParquetRelation(filepath.Join(dir, "*.parquet"))
		typed = "SELECT * EXCLUDE (_raw) FROM (" + raw + ")"
		if id == latest {
			typed = fmt.Sprintf("SELECT * FROM %s.latest_%s", publicAlias, t.Name)
		}
		return typed, raw, nil
	}
	return "", "", fmt.Errorf("snapshot %s: %w", id, errNoData)
}

// errNoData is a snapshot whose rows are nowhere: failed, or pruned.
var errNoData = errors.New("its rows are in neither Parquet tree (failed or pruned)")
