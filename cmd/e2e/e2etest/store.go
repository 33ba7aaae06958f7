package e2etest

import (
	"archive/tar"
	"compress/gzip"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RecordQueries read the run records as the comparison needs them: every
// column but reconciled_at, which the new reconcile of the latest
// snapshot sets anew; a whole snapshot's period as the empty string, which
// the earlier state's tables hold and the read model gives as NULL.
var RecordQueries = map[string]string{
	"findings": `SELECT snapshot_id, coalesce(period, ''), rule, severity, entity, entity_id, CAST(amount AS VARCHAR), coalesce(currency, ''),
		coalesce(detail, ''), status, first_seen, waived, CAST(as_of AS VARCHAR) FROM findings ORDER BY ALL`,
	"unjudged": `SELECT snapshot_id, coalesce(period, ''), rule, entity_id, table_name, field, json_type FROM unjudged ORDER BY ALL`,
	"rechecks": `SELECT snapshot_id, rule, entity_id, live, CAST(checked_at AS VARCHAR), coalesce(detail, '') FROM rechecks ORDER BY ALL`,
}

// LegacyRows reads the run records' tables of the state at path, of the
// earlier format, from a copy.
func LegacyRows(t *testing.T, path string) map[string][][]string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "state.duckdb")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db := ReadOnly(t, cp)
	out := map[string][][]string{}
	for kind, q := range RecordQueries {
		out[kind] = Rows(t, db, q)
	}
	return out
}

func ReadOnly(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Rows are the rows q returns, each column as text.
func Rows(t *testing.T, db *sql.DB, q string) [][]string {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out [][]string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Untar extracts the gzipped tar at path into a new temporary directory.
func Untar(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dir, h.Name)
		if !strings.HasPrefix(to, dir) {
			t.Fatalf("%s leaves the directory", h.Name)
		}
		if err := unpack(tr, h, dir, to); err != nil {
			t.Fatal(err)
		}
	}
}
func unpack(tr *tar.Reader, h *tar.Header, root, to string) error {
	switch h.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(to, 0o755)
	case tar.TypeSymlink:
		return os.Symlink(h.Linkname, to)
	case tar.TypeLink:
		return os.Link(filepath.Join(root, h.Linkname), to)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	w, err := os.Create(to)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, tr)
	return errors.Join(err, w.Close())
}
