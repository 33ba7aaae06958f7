//go:build lake

package objects

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/laketest"
)

// fakeS3 is the parquet.url of a prefix in an in-process S3 store.
func fakeS3(t *testing.T) string { return laketest.Start(t, "billing/snapshots") }

func localFiles(t *testing.T, n int) []lake.Local {
	t.Helper()
	dir := t.TempDir()
	var out []lake.Local
	for i := range n {
		p := filepath.Join(dir, "f"+string(rune('a'+i)))
		os.WriteFile(p, bytes.Repeat([]byte{byte(i)}, 1000+i), 0o644)
		out = append(out, lake.Local{Table: []string{"invoices", "customers"}[i%2], Path: p})
	}
	return out
}

// A published snapshot is its manifest: data first, then the manifest,
// then latest; a second snapshot moves latest; the files read back as
// written.
func TestPublishAndReadBack(t *testing.T) {
	for _, url := range []string{fakeS3(t), "file://" + t.TempDir()} {
		publishAndReadBack(t, url)
	}
}

// publishAndReadBack is TestPublishAndReadBack's body on the lake at url.
func publishAndReadBack(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	l, err := Open(ctx, url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	files := localFiles(t, 3)
	m, err := l.Publish(ctx, "2026-11-25T000000Z", files)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Publish(ctx, "2026-11-26T000000Z", files[:1]); err != nil {
		t.Fatal(err)
	}
	ms, err := l.Manifests(ctx)
	latest, _ := l.Latest(ctx)
	if err != nil || len(ms) != 2 || latest != "2026-11-26T000000Z" || len(ms[0].Files) != 3 {
		t.Fatalf("%s: manifests %+v, latest %q, %v", url, ms, latest, err)
	}
	for i, f := range m.Files {
		var got bytes.Buffer
		want, _ := os.ReadFile(files[i].Path)
		if err := l.Read(ctx, f.Key, &got); err != nil || !bytes.Equal(got.Bytes(), want) || filepath.Base(filepath.Dir(f.Key)) != "snapshot_id=2026-11-25T000000Z" {
			t.Fatalf("%s: %s read back %d bytes (%v), want %d", url, f.Key, got.Len(), err, len(want))
		}
	}
	l.Close()
}

// Prune removes a snapshot's manifest and data, and the data a publish
// cut short left without a manifest, and keeps the rest.
func TestPrune(t *testing.T) { prune(t, fakeS3(t)) }

// prune is TestPrune's body on the lake at url.
func prune(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	l, err := Open(ctx, url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	files := localFiles(t, 2)
	old, _ := l.Publish(ctx, "2026-11-24T000000Z", files)
	kept, _ := l.Publish(ctx, "2026-11-25T000000Z", files)
	if _, err := upload(ctx, l.b, files[0].Path, "invoices/snapshot_id=2026-11-26T000000Z/part-cut-00000.parquet"); err != nil {
		t.Fatal(err)
	}
	removed, err := l.Prune(ctx, []string{"2026-11-25T000000Z"}, nil)
	if err != nil || !slices.Equal(removed, []string{"2026-11-24T000000Z"}) {
		t.Fatalf("removed %v, %v", removed, err)
	}
	for _, f := range old.Files {
		if ok, _ := l.b.Exists(ctx, f.Key); ok {
			t.Errorf("%s of the pruned snapshot is still there", f.Key)
		}
	}
	for _, f := range kept.Files {
		if ok, _ := l.b.Exists(ctx, f.Key); !ok {
			t.Errorf("%s of the kept snapshot is gone", f.Key)
		}
	}
	if ok, _ := l.b.Exists(ctx, "invoices/snapshot_id=2026-11-26T000000Z/part-cut-00000.parquet"); ok {
		t.Error("the data of a publish cut short is still there")
	}
}

func TestCheck(t *testing.T) {
	for url, ok := range map[string]bool{
		"s3://b/p?endpoint=http://x": true, "gs://b/p": true, "azblob://c/p": true, "file:///tmp/x": true,
		"ftp://b/p": false, "s3://key:secret@b/p": false, "s3:///p": false, "%%": false,
	} {
		if err := lake.Check(url); (err == nil) != ok {
			t.Errorf("Check(%q) = %v", url, err)
		}
	}
}
