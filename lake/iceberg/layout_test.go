//go:build lake

package iceberg

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/billsnap/billsnap/lake"
)

// Where a table's data goes: where billsnap locates its tables (the sql
// catalog), PREFIX/<table>/data before the table exists, and its
// location's data/ folder after; where the catalog gives tables their
// locations (here a SQL catalog with a warehouse standing in for a REST
// catalog), the table is created to know it, and a snapshot whose file is
// there, outside the lake's root, commits and lists it by its URL.
func TestDataPathIsTheTablesDataFolder(t *testing.T) {
	ctx := context.Background()
	l := newTestLake(t)
	schemaOf := filepath.Join(t.TempDir(), "schema.parquet")
	writeParquet(t, schemaOf, "A", []string{"id=1", "_raw=2"}, 1)
	if got, err := l.cat.DataPath(ctx, "t", schemaOf); err != nil || got != "file://"+l.dir+"/t/data" {
		t.Fatalf("before the table: %q, %v; want PREFIX/t/data", got, err)
	}
	if _, err := l.cat.cat.LoadTable(ctx, table.Identifier{"billsnap", "t"}); !errors.Is(err, catalog.ErrNoSuchTable) {
		t.Fatalf("asking where the data goes created the table: %v", err)
	}
	if err := l.commit(t, "A", []string{"id=1", "_raw=2"}, 1); err != nil {
		t.Fatal(err)
	}
	if got, err := l.cat.DataPath(ctx, "t", schemaOf); err != nil || got != "file://"+l.dir+"/t/data" {
		t.Fatalf("after the first commit: %q, %v; want the table's location's data/", got, err)
	}

	warehouse := t.TempDir()
	c := &Catalog{ns: table.Identifier{"billsnap"}, root: "file://" + t.TempDir(), assigns: true}
	if err := c.openSQL(lake.DefaultIceberg(), t.TempDir(), ice.Properties{"warehouse": "file://" + warehouse}); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.ensureNamespace(ctx); err != nil {
		t.Fatal(err)
	}
	dir, err := c.DataPath(ctx, "t", schemaOf)
	if err != nil || !strings.HasPrefix(dir, "file://"+warehouse+"/") || !strings.HasSuffix(dir, "/data") {
		t.Fatalf("a catalog that locates its tables: %q, %v; want a data/ folder in its warehouse %s", dir, err, warehouse)
	}
	key := dir + "/snapshot_id=B/part-00000.parquet"
	writeParquet(t, strings.TrimPrefix(key, "file://"), "B", []string{"id=1", "_raw=2"}, 2)
	m := lake.Manifest{Snapshot: "B", Files: []lake.File{{Table: "t", Key: key}}}
	if err := c.Commit(ctx, m, []lake.Local{{Table: "t", Path: schemaOf}}); err != nil {
		t.Fatal(err)
	}
	tbl, _ := c.load(ctx, table.Identifier{"billsnap", "t"})
	fs, _ := tbl.FS(ctx)
	data, err := liveDataFiles(tbl.CurrentSnapshot(), fs)
	if err != nil || len(data) != 1 || data[0].FilePath() != key {
		t.Fatalf("the table lists %v (%v), want %s", data, err, key)
	}
	if _, err := os.Stat(strings.TrimPrefix(dir, "file://")); err != nil {
		t.Error(err)
	}
}
