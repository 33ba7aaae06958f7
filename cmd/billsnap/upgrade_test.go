package main

import (
	"archive/tar"
	"compress/gzip"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A store written by the billsnap before run records opens, upgrades in
// place (its state copied into a file of small blocks) and reconciles to
// the same findings. testdata/store-v5.tgz was
// made by the tree at 6dbc5c8 (state schema 5: findings, unjudged and
// rechecks are tables of the state), against `billsnap sandbox --seed 3
// --customers 12 --months 3 --now 2026-11-20T12:00:00Z`: export,
// reconcile, export, reconcile, reconcile --period 2026-10, recheck.
func TestAStoreOfTheEarlierFormatUpgrades(t *testing.T) {
	t.Parallel()
	dir := untar(t, filepath.Join("testdata", "store-v5.tgz"))
	legacy := legacyRows(t, filepath.Join(dir, ".billsnap", "state.duckdb"))
	if len(legacy["findings"]) == 0 || len(legacy["rechecks"]) == 0 {
		t.Fatalf("the fixture holds %d findings and %d rechecks", len(legacy["findings"]), len(legacy["rechecks"]))
	}
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 12, Planted: 2}, "")
	if code, _, stderr := cli(t, srv, "reconcile", "--out", dir, "--snapshot", "latest"); code != job.ExitMaterial {
		t.Fatalf("reconcile of the upgraded store: exit %d: %s", code, stderr)
	}
	db := openDB(t, dir)
	for kind, q := range recordQueries {
		got := rows(t, db, q)
		if !reflect.DeepEqual(got, legacy[kind]) {
			t.Errorf("%s after the upgrade and a reconcile: %d rows, %d before\n got %q\nwant %q", kind, len(got), len(legacy[kind]), got, legacy[kind])
		}
	}
	state := readOnly(t, filepath.Join(dir, ".billsnap", "state.duckdb"))
	var version string
	var tables, blockSize int
	state.QueryRow("SELECT value FROM billsnap_meta WHERE key = 'schema_version'").Scan(&version)
	state.QueryRow("SELECT block_size FROM pragma_database_size() WHERE database_name = 'state'").Scan(&blockSize)
	state.QueryRow(`SELECT count(*) FROM duckdb_tables() WHERE table_name IN ('findings', 'unjudged', 'rechecks')`).Scan(&tables)
	files, _ := filepath.Glob(filepath.Join(dir, ".billsnap", "history", "*", "*.parquet"))
	if version != "8" || tables != 0 || len(files) == 0 || blockSize != 16<<10 {
		t.Errorf("the upgraded state: version %s, %d tables of run records, %d run files, blocks of %d bytes", version, tables, len(files), blockSize)
	}
}

// recordQueries read the run records as the comparison needs them: every
// column but reconciled_at, which the new reconcile of the latest
// snapshot sets anew; a whole snapshot's period as the empty string, which
// the earlier state's tables hold and the read model gives as NULL.
var recordQueries = map[string]string{
	"findings": `SELECT snapshot_id, coalesce(period, ''), rule, severity, entity, entity_id, CAST(amount AS VARCHAR), coalesce(currency, ''),
		coalesce(detail, ''), status, first_seen, waived, CAST(as_of AS VARCHAR) FROM findings ORDER BY ALL`,
	"unjudged": `SELECT snapshot_id, coalesce(period, ''), rule, entity_id, table_name, field, json_type FROM unjudged ORDER BY ALL`,
	"rechecks": `SELECT snapshot_id, rule, entity_id, live, CAST(checked_at AS VARCHAR), coalesce(detail, '') FROM rechecks ORDER BY ALL`,
}

// legacyRows reads the run records' tables of the state at path, of the
// earlier format, from a copy.
func legacyRows(t *testing.T, path string) map[string][][]string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "state.duckdb")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db := readOnly(t, cp)
	out := map[string][][]string{}
	for kind, q := range recordQueries {
		out[kind] = rows(t, db, q)
	}
	return out
}

func readOnly(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// rows are the rows q returns, each column as text.
func rows(t *testing.T, db *sql.DB, q string) [][]string {
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

// untar extracts the gzipped tar at path into a new temporary directory.
func untar(t *testing.T, path string) string {
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
