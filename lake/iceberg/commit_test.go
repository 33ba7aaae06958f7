//go:build lake

package iceberg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/xitongsys/parquet-go-source/local"
	"github.com/xitongsys/parquet-go/writer"

	"github.com/billsnap/billsnap/lake"
)

// testLake is a file:// lake and the default catalog of a store beside it.
type testLake struct {
	dir string
	cat *Catalog
}

func newTestLake(t *testing.T) testLake {
	t.Helper()
	dir := t.TempDir()
	c, err := Open(context.Background(), lake.DefaultIceberg(), "file://"+dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return testLake{dir: dir, cat: c.(*Catalog)}
}

// commit writes a Parquet file of table t for snapshot id with columns
// (each "name" or "name=fieldID") and rows rows, and commits it.
func (l testLake) commit(t *testing.T, id string, columns []string, rows int) error {
	t.Helper()
	key := "t/snapshot_id=" + id + "/part-00000.parquet"
	path := filepath.Join(l.dir, key)
	writeParquet(t, path, id, columns, rows)
	m := lake.Manifest{Snapshot: id, Files: []lake.File{{Table: "t", Key: key}}}
	return l.cat.Commit(context.Background(), m, []lake.Local{{Table: "t", Path: path}})
}

// writeParquet writes at path a Parquet file of snapshot id with columns
// (each "name" or "name=fieldID") and rows rows.
func writeParquet(t *testing.T, path, id string, columns []string, rows int) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	var md []string
	for _, c := range columns {
		name, fid, _ := strings.Cut(c, "=")
		tag := "name=" + name + ", type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=REQUIRED"
		if fid != "" {
			tag += ", fieldid=" + fid
		}
		md = append(md, tag)
	}
	f, err := local.NewLocalFileWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := writer.NewCSVWriter(md, f, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		row := make([]any, len(columns))
		for j := range row {
			row[j] = fmt.Sprintf("%s-%d-%d", id, i, j)
		}
		w.Write(row)
	}
	if err := w.WriteStop(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// table is the table t as the catalog holds it now.
func (l testLake) table(t *testing.T) *table.Table {
	t.Helper()
	l.cat.tables.put("t", nil)
	tbl, err := l.cat.load(context.Background(), table.Identifier{"billsnap", "t"})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// files are the data files of the table's current snapshot.
func (l testLake) files(t *testing.T) []string {
	t.Helper()
	tbl := l.table(t)
	fs, _ := tbl.FS(context.Background())
	data, err := liveDataFiles(tbl.CurrentSnapshot(), fs)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range data {
		out = append(out, strings.TrimPrefix(d.FilePath(), "file://"+l.dir+"/"))
	}
	return out
}

// A table whose first snapshot's file has no field IDs (published before
// billsnap gave its columns IDs) gets a name mapping; the next, whose file
// has them, makes the table's schema its IDs and replaces the first's file
// (empty, which a scan's plan leaves out). Once no snapshot the table
// keeps has a file without IDs, the name mapping goes.
func TestFilesWithoutFieldIDsKeepTheNameMappingUntilExpired(t *testing.T) {
	l := newTestLake(t)
	if err := l.commit(t, "A", []string{"id", "name", "_raw"}, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.table(t).Properties()[table.DefaultNameMappingKey]; !ok {
		t.Fatal("a table of files without field IDs has no name mapping")
	}
	if err := l.commit(t, "B", []string{"id=1", "_raw=3", "name=2"}, 2); err != nil {
		t.Fatal(err)
	}
	tbl := l.table(t)
	if got := schemaText(tbl); got != "id=1 _raw=3 name=2" {
		t.Errorf("schema %s, want the file's IDs", got)
	}
	if got := l.files(t); !slices.Equal(got, []string{"t/snapshot_id=B/part-00000.parquet"}) {
		t.Errorf("the current snapshot lists %v, want B's file alone", got)
	}
	if _, ok := tbl.Properties()[table.DefaultNameMappingKey]; !ok || tbl.Properties()[idsSinceKey] != "B" {
		t.Errorf("properties %v: want the name mapping kept for A's file, and %s B", tbl.Properties(), idsSinceKey)
	}
	if err := l.cat.Expire(context.Background(), []string{"B"}); err != nil {
		t.Fatal(err)
	}
	tbl = l.table(t)
	if _, ok := tbl.Properties()[table.DefaultNameMappingKey]; ok || len(tbl.Metadata().Snapshots()) != 1 {
		t.Errorf("after A expired: %d snapshots, properties %v; want 1 and no name mapping", len(tbl.Metadata().Snapshots()), tbl.Properties())
	}
}

// A table created with IDs that are not 1…N in order (a column added and
// then dropped by the fields key before the lake was set) has exactly
// those IDs; a later file that gives an ID to another column than an
// earlier schema did is refused, naming it.
func TestTheTableHasTheFilesFieldIDs(t *testing.T) {
	l := newTestLake(t)
	if err := l.commit(t, "A", []string{"id=1", "name=2", "region=5", "_raw=3"}, 1); err != nil {
		t.Fatal(err)
	}
	if got := schemaText(l.table(t)); got != "id=1 name=2 region=5 _raw=3" {
		t.Errorf("schema %s, want the file's IDs", got)
	}
	if _, ok := l.table(t).Properties()[table.DefaultNameMappingKey]; ok {
		t.Error("a table of files with field IDs has a name mapping")
	}
	err := l.commit(t, "B", []string{"id=1", "name=2", "culture=5", "_raw=3"}, 1)
	if err == nil || !strings.Contains(err.Error(), "field ID 5 is region") {
		t.Fatalf("an ID given to another column: %v", err)
	}
}

// schemaText is the table's current schema as "name=ID …".
func schemaText(tbl *table.Table) string {
	var out []string
	for _, f := range tbl.Schema().Fields() {
		out = append(out, fmt.Sprintf("%s=%d", f.Name, f.ID))
	}
	return strings.Join(out, " ")
}
