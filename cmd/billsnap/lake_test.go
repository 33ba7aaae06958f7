package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/laketest"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// An export with --parquet-url publishes the snapshot to an S3-compatible
// store: read back through its manifest as a Hive tree, every table equals
// the sandbox's answer key; the latest pointer names it; a second export
// publishes the next, and retention prunes the lake with the store.
func TestExportToObjectStorage(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 82, Customers: 40, Planted: 1}, "")
	url := laketest.Start(t, "billing")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.yml"), []byte("retention: {keep: 1}\n"), 0o644)
	export := func() {
		t.Helper()
		if code, _, stderr := cli(t, srv, "export", "--out", dir, "--config", filepath.Join(dir, "c.yml"), "--progress", "none", "--parquet-url", url); code != job.ExitOK {
			t.Fatalf("export: %d %s", code, stderr)
		}
	}
	export()
	l, err := lake.Open(context.Background(), url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checkLakeAgainstKey(t, l, srv.AnswerKey())
	export()
	ms, _ := l.Manifests(context.Background())
	latest, _ := l.Latest(context.Background())
	if len(ms) != 1 || ms[0].Snapshot != latest {
		t.Fatalf("after a second export with retention 1: manifests %d, latest %q", len(ms), latest)
	}
	checkLakeAgainstKey(t, l, srv.AnswerKey())
}

// checkLakeAgainstKey downloads the latest snapshot's files, as its
// manifest lists them, into a Hive tree and checks every table's IDs
// against the answer key.
func checkLakeAgainstKey(t *testing.T, l *lake.Lake, key sandbox.AnswerKey) {
	t.Helper()
	ctx := context.Background()
	latest, err := l.Latest(ctx)
	if err != nil || latest == "" {
		t.Fatalf("latest %q, %v", latest, err)
	}
	ms, err := l.Manifests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	for _, m := range ms {
		if m.Snapshot != latest {
			continue
		}
		for _, f := range m.Files {
			p := filepath.Join(tree, filepath.FromSlash(f.Key))
			os.MkdirAll(filepath.Dir(p), 0o755)
			out, _ := os.Create(p)
			if err := l.Read(ctx, f.Key, out); err != nil {
				t.Fatal(err)
			}
			out.Close()
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, want := range key.Tables {
		var n int
		var h string
		q := "SELECT " + idsHash + " FROM read_parquet('" + filepath.Join(tree, table, "*", "*.parquet") + "', hive_partitioning = true) WHERE snapshot_id = ?"
		if err := db.QueryRow(q, latest).Scan(&n, &h); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != want.Count || h != want.IDsSHA256 {
			t.Errorf("%s in object storage: %d rows, hash %.12s; answer key %d, %.12s", table, n, h, want.Count, want.IDsSHA256)
		}
	}
}
