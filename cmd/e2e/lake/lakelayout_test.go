//go:build lake && heavy && !race

package lake

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/iceberg"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A lake in the layout billsnap published before it used Iceberg's
// (each table's files beside its metadata, PREFIX/<table>/snapshot_id=<id>/,
// registered there) keeps working. Its first snapshot is published as
// that billsnap did: the same publish and commit, each file's folder
// PREFIX/<table>. The next export publishes into it in Iceberg's layout
// (PREFIX/<table>/data/snapshot_id=<id>/); both snapshots then read
// right, the old one included: by the spec reader and by DuckDB by field
// ID (each Iceberg snapshot lists exactly its manifest's files, its rows
// the answer key of its export), and through lake ddl --hive's DuckDB
// views. After an export with retention 1, nothing of the old layout is
// left, and nothing dangles.
func TestALakeInTheEarlierLayoutKeepsWorking(t *testing.T) {
	t.Parallel()
	first := sandboxtest.Start(t, sandbox.Options{Seed: 94, Customers: 22, Planted: 1}, "")
	second := sandboxtest.Start(t, sandbox.Options{Seed: 95, Customers: 27, Planted: 1}, "")
	dir, lakeDir := t.TempDir(), t.TempDir()
	url := "file://" + lakeDir
	if code, _, stderr := e2etest.CLI(t, first, "export", "--out", dir, "--progress", "none"); code != job.ExitOK {
		t.Fatalf("export: %d %s", code, stderr)
	}
	old := publishInTheEarlierLayout(t, dir, url)
	keys := map[string]sandbox.AnswerKey{old: first.AnswerKey()}
	now := exportTo(t, second, dir, url, "retention: {keep: 3}\n")
	keys[now] = second.AnswerKey()

	lk := readLake(t, dir, url)
	lk.check(t, keys, 2)
	for _, f := range lk.manifests[old].Files {
		if f.Key != f.Table+"/snapshot_id="+old+"/"+filepath.Base(f.Key) {
			t.Errorf("%s of %s is not in the earlier layout", f.Key, old)
		}
	}
	for _, f := range lk.manifests[now].Files {
		if f.Key != f.Table+"/data/snapshot_id="+now+"/"+filepath.Base(f.Key) {
			t.Errorf("%s of %s is not in the table's data/ folder", f.Key, now)
		}
	}
	checkHiveViewsRead(t, second, dir, url, keys)

	keys = map[string]sandbox.AnswerKey{exportTo(t, second, dir, url, "retention: {keep: 1}\n"): second.AnswerKey()}
	lk = readLake(t, dir, url)
	lk.check(t, keys, 1)
	lk.checkNothingElse(t, lakeDir)
	filepath.WalkDir(lakeDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), "snapshot_id=") && filepath.Base(filepath.Dir(p)) != "data" {
			t.Errorf("after retention 1 the earlier layout's %s is left", p)
		}
		return nil
	})
}

// publishInTheEarlierLayout publishes the store's one snapshot to the
// lake at url as billsnap did before it used Iceberg's layout, and
// returns it: its files in PREFIX/<table>/snapshot_id=<id>/, then the
// manifest and latest, then the commit of each table (located at
// PREFIX/<table>) to the default catalog.
func publishInTheEarlierLayout(t *testing.T, dir, url string) string {
	t.Helper()
	ctx := context.Background()
	files, _ := filepath.Glob(filepath.Join(dir, "parquet", "*", "snapshot_id=*", "*.parquet"))
	if len(files) == 0 {
		t.Fatal("the store holds no snapshot")
	}
	id := strings.TrimPrefix(filepath.Base(filepath.Dir(files[0])), "snapshot_id=")
	var local []lake.Local
	for _, f := range files {
		table := filepath.Base(filepath.Dir(filepath.Dir(f)))
		local = append(local, lake.Local{Table: table, Path: f, Dir: lake.Root(url) + "/" + table})
	}
	l, err := objects.Open(ctx, url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	m, err := l.Publish(ctx, id, local)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := iceberg.Open(ctx, lake.DefaultIceberg(), url, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.Commit(ctx, m, local); err != nil {
		t.Fatal(err)
	}
	return id
}

// checkHiveViewsRead runs lake ddl --engine duckdb --hive's statements in
// DuckDB: each table's view holds every snapshot of keys, each equal to
// the answer key of its export, and its latest_ view the newest.
func checkHiveViewsRead(t *testing.T, srv *sandbox.Server, dir, url string, keys map[string]sandbox.AnswerKey) {
	t.Helper()
	code, stdout, stderr := e2etest.CLI(t, srv, "lake", "ddl", "--engine", "duckdb", "--hive", "--out", dir, "--parquet-url", url)
	if code != job.ExitOK {
		t.Fatalf("lake ddl: %d %s", code, stderr)
	}
	db := duckDB(t)
	if _, err := db.Exec(stdout); err != nil {
		t.Fatalf("the statements: %v\n%s", err, stdout)
	}
	newest := ""
	for id, key := range keys {
		newest = max(newest, id)
		for table, want := range key.Tables {
			var n int
			var h string
			if err := db.QueryRow("SELECT "+e2etest.IDsHash+" FROM billsnap."+table+" WHERE snapshot_id = ?", id).Scan(&n, &h); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
			if n != want.Count || h != want.IDsSHA256 {
				t.Errorf("billsnap.%s of %s: %d rows, hash %.12s; answer key %d, %.12s", table, id, n, h, want.Count, want.IDsSHA256)
			}
		}
	}
	for table, want := range keys[newest].Tables {
		var n int
		var h string
		if err := db.QueryRow("SELECT "+e2etest.IDsHash+" FROM billsnap.latest_"+table).Scan(&n, &h); err != nil || n != want.Count || h != want.IDsSHA256 {
			t.Errorf("billsnap.latest_%s: %d rows, hash %.12s (%v); answer key %d, %.12s", table, n, h, err, want.Count, want.IDsSHA256)
		}
	}
}
