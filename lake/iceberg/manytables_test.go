//go:build lake

package iceberg

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/lake"
)

// A snapshot of many tables, committed a few tables at a time to the
// default SQL catalog (creating them, then replacing their files), leaves
// every table holding it, with its own file.
func TestManyTablesAreCommittedAtOnce(t *testing.T) {
	l := newTestLake(t)
	ctx := context.Background()
	for _, id := range []string{"2026-11-27T000000Z", "2026-11-28T000000Z"} {
		var m lake.Manifest
		var local []lake.Local
		for i := range 12 {
			name := fmt.Sprintf("t%02d", i)
			key := name + "/data/snapshot_id=" + id + "/part-00000.parquet"
			path := filepath.Join(l.dir, key)
			writeParquet(t, path, id, []string{"id=1", "name=2"}, i+1)
			m.Files = append(m.Files, lake.File{Table: name, Key: key})
			local = append(local, lake.Local{Table: name, Path: path})
		}
		m.Snapshot = id
		if err := l.cat.Commit(ctx, m, local); err != nil {
			t.Fatalf("committing %s: %v", id, err)
		}
	}
	l.cat.tables = loaded{} // read every table again from the catalog
	tables, err := l.cat.Tables(ctx)
	if err != nil || len(tables) != 12 {
		t.Fatalf("%d tables, %v; want 12", len(tables), err)
	}
	for _, tbl := range tables {
		want := filepath.Join(l.dir, tableName(tbl), "data/snapshot_id=2026-11-28T000000Z/part-00000.parquet")
		fs, err := tbl.FS(ctx)
		if err != nil {
			t.Fatal(err)
		}
		files, err := liveDataFiles(tbl.CurrentSnapshot(), fs)
		if Held(tbl.CurrentSnapshot()) != "2026-11-28T000000Z" || err != nil || len(files) != 1 || files[0].FilePath() != "file://"+want {
			t.Errorf("%s holds %q: %d files, %v", tableName(tbl), Held(tbl.CurrentSnapshot()), len(files), err)
		}
	}
}
