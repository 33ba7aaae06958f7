//go:build lake

package objects

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/lake"
)

// A snapshot's files go in their table's data folder, Iceberg's layout:
// PREFIX/<table>/data/snapshot_id=<id>/, unless a file's Dir names
// another folder (the location a catalog gave its table), even outside
// the lake's root: the manifest then lists the file by its URL, it reads
// back, and prune removes it with its snapshot, as well as what a
// publish cut short left there.
func TestDataGoesInEachTablesDataFolder(t *testing.T) {
	ctx := context.Background()
	root, tables := t.TempDir(), t.TempDir()
	l, err := Open(ctx, "file://"+root, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	files := localFiles(t, 2) // invoices, customers
	elsewhere := "file://" + tables + "/billsnap/customers-7f3a/data"
	files[1].Dir = elsewhere
	old, err := l.Publish(ctx, "2026-11-24T000000Z", files)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(old.Files[0].Key, "invoices/data/snapshot_id=2026-11-24T000000Z/part-") ||
		!strings.HasPrefix(old.Files[1].Key, elsewhere+"/snapshot_id=2026-11-24T000000Z/part-") {
		t.Fatalf("keys %s and %s: want invoices' under its data folder, customers' at %s", old.Files[0].Key, old.Files[1].Key, elsewhere)
	}
	var got bytes.Buffer
	if want, _ := os.ReadFile(files[1].Path); l.Read(ctx, old.Files[1].Key, &got) != nil || !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("%s read back %d bytes, want %d", old.Files[1].Key, got.Len(), len(want))
	}
	kept, err := l.Publish(ctx, "2026-11-25T000000Z", files)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(tables, "billsnap/customers-7f3a/data/snapshot_id=2026-11-26T000000Z/part-cut-00000.parquet")
	os.MkdirAll(filepath.Dir(cut), 0o755)
	os.WriteFile(cut, []byte("cut short"), 0o644)
	if _, err := l.Prune(ctx, []string{"2026-11-25T000000Z"}, nil); err != nil {
		t.Fatal(err)
	}
	exists := func(key string) bool {
		_, err := os.Stat(strings.TrimPrefix(lake.FileURL("file://"+root, key), "file://"))
		return err == nil
	}
	for _, f := range old.Files {
		if exists(f.Key) {
			t.Errorf("%s of the pruned snapshot is still there", f.Key)
		}
	}
	for _, f := range kept.Files {
		if !exists(f.Key) {
			t.Errorf("%s of the kept snapshot is gone", f.Key)
		}
	}
	if _, err := os.Stat(cut); err == nil {
		t.Error("the data a publish cut short left in the catalog's location is still there")
	}
}
