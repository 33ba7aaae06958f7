//go:build lake && heavy && !race

// These tests publish to a lake, which only the heavy tier without -race
// links (e2etest/drivers.go).

package lake

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A publish that fails is on record in words: what failed, that the
// snapshot is kept, and that the next export completes the lake; and the
// next export, the lake reachable again, publishes both snapshots.
func TestAFailedPublishIsRecordedInWords(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 89, Customers: 20}, "")
	dir := t.TempDir()
	lakeDir, out := filepath.Join(dir, "lake"), filepath.Join(dir, "out")
	if err := os.WriteFile(lakeDir, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + lakeDir
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", out, "--progress", "none", "--parquet-url", url); code != job.ExitFailure {
		t.Fatalf("export to a lake that is a file: exit %d, want 1: %s", code, stderr)
	}
	var stdout, stderr bytes.Buffer
	if code := e2etest.RunWith(context.Background(), []string{"status", "--format", "json", "--out", out}, &stdout, &stderr, e2etest.NoEnv); code != job.ExitOK {
		t.Fatalf("status: exit %d: %s", code, stderr.String())
	}
	var doc struct {
		Runs []struct{ Outcome, Error string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil || len(doc.Runs) != 1 {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	for _, want := range []string{"kept in the store", "publishing it to the lake " + url + " failed", "the next export", "publishes every complete snapshot it lacks"} {
		if !strings.Contains(doc.Runs[0].Error, want) {
			t.Errorf("the failed publish's record lacks %q: %s", want, doc.Runs[0].Error)
		}
	}
	if err := os.Remove(lakeDir); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", out, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
		t.Fatalf("the next export: exit %d: %s", code, stderr)
	}
	l, err := objects.Open(context.Background(), url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if ms, err := l.Manifests(context.Background()); err != nil || len(ms) != 2 {
		t.Errorf("after the next export the lake holds %d snapshots (%v), want both", len(ms), err)
	}
}
