//go:build lake && heavy && !race

package lake

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/iceberg"
	"github.com/billsnap/billsnap/lake/laketest/icebergspec"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// The lake's tables as an engine other than iceberg-go reads them: the
// metadata read by the spec alone (icebergspec: JSON and an Avro decoder
// of its own), the Parquet read by DuckDB resolving columns by field ID
// and never by name. Three exports of three sandboxes (the third with a
// column the fields key adds), then one with retention 1, to a file://
// lake, with units_of_measure empty. After each round, for every table:
//   - the metadata, manifest lists and manifests follow the spec, and every
//     file they reference exists;
//   - each Iceberg snapshot lists exactly the files of its billsnap
//     snapshot's manifest (units_of_measure, empty, one);
//   - every Parquet file, in the lake and in the local tree, carries the
//     field IDs the table's schema gives its columns' names;
//   - each snapshot, read by field ID with its own schema, equals the same
//     files read by name, and its IDs the answer key of its export; an
//     earlier snapshot read with the current schema has the added column
//     NULL;
//
// and after retention the lake holds nothing but what the Iceberg
// metadata and billsnap's manifests reference: no sidecar, no empty
// directory.
func TestLakeTablesAsAnotherEngineReadsThem(t *testing.T) {
	srvs := []*sandbox.Server{
		sandboxtest.Start(t, sandbox.Options{Seed: 91, Customers: 20, Planted: 1}, ""),
		sandboxtest.Start(t, sandbox.Options{Seed: 92, Customers: 26, Planted: 1}, ""),
		sandboxtest.Start(t, sandbox.Options{Seed: 93, Customers: 31, Planted: 1}, ""),
	}
	for _, srv := range srvs {
		for _, u := range srv.Dataset().Units {
			if err := srv.Remove("UnitsOfMeasure", u.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir, lakeDir := t.TempDir(), t.TempDir()
	url := "file://" + lakeDir
	keys := map[string]sandbox.AnswerKey{} // by billsnap snapshot
	culture := "fields: {customers: {culture: {field: Culture, type: string}}}\n"
	for i, srv := range srvs {
		fields := ""
		if i == 2 {
			fields = culture
		}
		keys[exportTo(t, srv, dir, url, "retention: {keep: 3}\n"+fields)] = srv.AnswerKey()
	}
	lk := readLake(t, dir, url)
	lk.check(t, keys, 3)
	keys[exportTo(t, srvs[2], dir, url, "retention: {keep: 1}\n"+culture)] = srvs[2].AnswerKey()
	lk = readLake(t, dir, url)
	lk.check(t, keys, 1)
	lk.checkNothingElse(t, lakeDir)
}

// exportTo exports srv into the store at dir, publishing to the lake at
// url, with the configuration yml; it returns the snapshot taken.
func exportTo(t *testing.T, srv *sandbox.Server, dir, url, yml string) string {
	t.Helper()
	conf := filepath.Join(dir, "lakespec.yml")
	os.WriteFile(conf, []byte(yml), 0o644)
	code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--config", conf, "--progress", "none", "--parquet-url", url)
	if code != job.ExitOK {
		t.Fatalf("export: %d %s", code, stderr)
	}
	l, err := objects.Open(context.Background(), url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	latest, err := l.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return latest
}

// readLakeTables is a file:// lake as another engine finds it: each
// table's metadata, read by the spec, and billsnap's manifests.
type readLakeTables struct {
	dir       string // the store
	root      string // the lake's root URL
	tables    map[string]icebergspec.Table
	history   map[string]icebergspec.Table // the history tables, by name
	manifests map[string]lake.Manifest     // by snapshot
	db        *sql.DB
}

func readLake(t *testing.T, dir, url string) readLakeTables {
	t.Helper()
	ctx := context.Background()
	lk := readLakeTables{dir: dir, root: lake.Root(url), tables: map[string]icebergspec.Table{}, history: map[string]icebergspec.Table{}, manifests: map[string]lake.Manifest{}, db: duckDB(t)}
	for _, it := range allIcebergTables(t, url, dir) {
		name := it.Identifier()[1]
		tbl, err := icebergspec.Read(ctx, openLocal, it.MetadataLocation())
		if err != nil {
			t.Errorf("%s: by the spec: %v", name, err)
		}
		if isHistory(it) {
			lk.history[name] = tbl
		} else {
			lk.tables[name] = tbl
		}
	}
	l, err := objects.Open(ctx, url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ms, err := l.Manifests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		lk.manifests[m.Snapshot] = m
	}
	return lk
}

// openLocal opens a file:// location.
func openLocal(_ context.Context, loc string) (io.ReadCloser, error) {
	return os.Open(localPath(loc))
}

func localPath(loc string) string { return strings.TrimPrefix(loc, "file://") }

// duckDB is an in-memory DuckDB until the test ends.
func duckDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// check checks every table (see the test), each holding snapshots
// Iceberg snapshots; keys are the answer keys by billsnap snapshot.
func (lk readLakeTables) check(t *testing.T, keys map[string]sandbox.AnswerKey, snapshots int) {
	t.Helper()
	if len(lk.tables) != len(tablesOf(keys)) {
		t.Fatalf("%d tables, want %d", len(lk.tables), len(tablesOf(keys)))
	}
	for name, tbl := range lk.tables {
		for _, f := range tbl.Files() {
			if _, err := os.Stat(localPath(f)); err != nil {
				t.Errorf("%s references %s: %v", name, f, err)
			}
		}
		if len(tbl.Snapshots) != snapshots {
			t.Errorf("%s: %d Iceberg snapshots, want %d", name, len(tbl.Snapshots), snapshots)
		}
		cur := tbl.Schemas[tbl.CurrentSchemaID]
		for _, s := range tbl.Snapshots {
			held := s.Summary[iceberg.SnapshotKey]
			if s.SchemaID == nil {
				t.Fatalf("%s: Iceberg snapshot %d of %s names no schema", name, s.ID, held)
			}
			own := tbl.Schemas[*s.SchemaID]
			lk.checkFilesOf(t, name, held, s)
			lk.checkByFieldID(t, name, held, own, s, keys[held].Tables[name])
			lk.checkAddedNull(t, name, held, cur, own, s)
		}
		lk.checkLocalTree(t, name, cur)
	}
}

// tablesOf is the tables of an answer key of keys.
func tablesOf(keys map[string]sandbox.AnswerKey) map[string]sandbox.TableKey {
	for _, k := range keys {
		return k.Tables
	}
	return nil
}

// checkFilesOf checks that Iceberg snapshot s of table lists exactly the
// files billsnap's manifest of snapshot held lists for it.
func (lk readLakeTables) checkFilesOf(t *testing.T, table, held string, s icebergspec.Snapshot) {
	t.Helper()
	m, ok := lk.manifests[held]
	if !ok {
		t.Errorf("%s: Iceberg snapshot %d holds %q, which has no manifest", table, s.ID, held)
		return
	}
	var want, got []string
	for _, f := range m.Files {
		if f.Table == table {
			want = append(want, f.Key)
		}
	}
	for _, f := range s.DataFiles {
		got = append(got, strings.TrimPrefix(f.Path, lk.root+"/"))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s: Iceberg snapshot of %s lists %v, its manifest %v", table, held, got, want)
	}
}

// checkByFieldID reads snapshot s of table by field ID only, with schema
// sc, and compares it with the same files read by name and with the
// answer key of its export.
func (lk readLakeTables) checkByFieldID(t *testing.T, table, held string, sc icebergspec.Schema, s icebergspec.Snapshot, want sandbox.TableKey) {
	t.Helper()
	files := dataPaths(s)
	byID := fmt.Sprintf("read_parquet(%s, schema = %s)", files, fieldIDMap(sc))
	byName := fmt.Sprintf("read_parquet(%s)", files)
	cols := castColumns(sc)
	var diff int
	q := fmt.Sprintf("SELECT count(*) FROM ((SELECT %[1]s FROM %[2]s EXCEPT ALL SELECT %[1]s FROM %[3]s) UNION ALL (SELECT %[1]s FROM %[3]s EXCEPT ALL SELECT %[1]s FROM %[2]s))", cols, byID, byName)
	if err := lk.db.QueryRow(q).Scan(&diff); err != nil {
		t.Fatalf("%s of %s by field ID: %v\n%s", table, held, err, q)
	}
	var n int
	var h string
	if err := lk.db.QueryRow("SELECT "+e2etest.IDsHash+" FROM "+byID).Scan(&n, &h); err != nil {
		t.Fatal(err)
	}
	if diff != 0 || n != want.Count || h != want.IDsSHA256 {
		t.Errorf("%s of %s read by field ID: %d rows differ from a read by name; %d rows, hash %.12s; answer key %d, %.12s",
			table, held, diff, n, h, want.Count, want.IDsSHA256)
	}
}

// checkAddedNull reads snapshot s by field ID with the table's current
// schema: a column that s's own schema lacks is NULL in every row.
func (lk readLakeTables) checkAddedNull(t *testing.T, table, held string, cur, own icebergspec.Schema, s icebergspec.Snapshot) {
	t.Helper()
	for _, f := range cur.Fields {
		if slices.ContainsFunc(own.Fields, func(g icebergspec.Field) bool { return g.ID == f.ID }) {
			continue
		}
		var filled int
		q := fmt.Sprintf("SELECT count(%s) FROM read_parquet(%s, schema = %s)", f.Name, dataPaths(s), fieldIDMap(cur))
		if err := lk.db.QueryRow(q).Scan(&filled); err != nil || filled != 0 {
			t.Errorf("%s of %s, with the current schema: %s filled in %d rows (%v), want none", table, held, f.Name, filled, err)
		}
	}
}

// checkLocalTree checks that every Parquet file of table in the store's
// tree carries, for each column, the ID the current schema sc gives its
// name.
func (lk readLakeTables) checkLocalTree(t *testing.T, table string, sc icebergspec.Schema) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(lk.dir, "parquet", table, "snapshot_id=*", "*.parquet"))
	if len(files) == 0 {
		t.Errorf("%s: no local files", table)
	}
	ids := map[string]int{}
	for _, f := range sc.Fields {
		ids[f.Name] = f.ID
	}
	for _, f := range files {
		rows, err := lk.db.Query("SELECT name, coalesce(field_id, 0) FROM parquet_schema(?) WHERE coalesce(num_children, 0) = 0", f)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name string
			var id int
			rows.Scan(&name, &id)
			if want, ok := ids[name]; !ok || id != want {
				t.Errorf("%s: %s carries field ID %d for %s; the table's schema %d", table, f, id, name, want)
			}
		}
		rows.Close()
	}
}

// checkNothingElse checks that the lake at dir holds only the files the
// tables' metadata references, billsnap's manifests and latest pointer,
// and the files they list: no sidecar, and no empty directory.
func (lk readLakeTables) checkNothingElse(t *testing.T, dir string) {
	t.Helper()
	want := map[string]bool{filepath.Join(dir, "_billsnap", "latest"): true}
	for id, m := range lk.manifests {
		want[filepath.Join(dir, "_billsnap", "manifests", id+".json")] = true
		for _, f := range m.Files {
			want[filepath.Join(dir, f.Key)] = true
		}
	}
	for _, tbl := range lk.tables {
		for _, f := range tbl.Files() {
			want[localPath(f)] = true
		}
	}
	for _, tbl := range lk.history {
		for _, f := range tbl.Files() {
			want[localPath(f)] = true
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.IsDir() {
			if entries, _ := os.ReadDir(p); len(entries) == 0 {
				t.Errorf("an empty directory is left: %s", p)
			}
		} else if !want[p] {
			t.Errorf("the lake holds %s, which nothing references", p)
		}
		return nil
	})
}

// dataPaths is the DuckDB list of a snapshot's data files.
func dataPaths(s icebergspec.Snapshot) string {
	var q []string
	for _, f := range s.DataFiles {
		q = append(q, "'"+localPath(f.Path)+"'")
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// fieldIDMap is DuckDB's read_parquet schema that resolves sc's columns
// by field ID only.
func fieldIDMap(sc icebergspec.Schema) string {
	var entries []string
	for _, f := range sc.Fields {
		entries = append(entries, fmt.Sprintf("%d: {name: '%s', type: '%s', default_value: NULL}", f.ID, f.Name, duckType(f.Type)))
	}
	return "map {" + strings.Join(entries, ", ") + "}"
}

// duckType is DuckDB's type for an Iceberg primitive type.
func duckType(t string) string {
	switch t {
	case "string":
		return "VARCHAR"
	case "timestamptz":
		return "TIMESTAMPTZ"
	case "int":
		return "INTEGER"
	case "long":
		return "BIGINT"
	}
	return strings.ToUpper(t) // boolean, double, decimal(P,S)
}

// castColumns selects sc's columns as text, so that reads of different
// types (JSON, VARCHAR) compare by value.
func castColumns(sc icebergspec.Schema) string {
	var cols []string
	for _, f := range sc.Fields {
		cols = append(cols, f.Name+"::VARCHAR")
	}
	return strings.Join(cols, ", ")
}
