package snapshot

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A publish that fails after the manifest (its point of no return) leaves
// the snapshot and its staging for the next run, which publishes it: here
// an incomplete snapshot whose tree could not be switched.
func TestAPublishCutShortAfterTheManifestIsFinished(t *testing.T) {
	t.Parallel()
	drifting := sandboxtest.Start(t, sandbox.Options{Seed: 49, Customers: 20}, "totalcount=Contacts")
	cfg := testConfig(drifting, t.TempDir())
	s := openStore(t, cfg)
	link := filepath.Join(cfg.Out, "incomplete")
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatal(err)
	}
	// The incomplete tree's link is not a link: switching it fails.
	os.Remove(link)
	if err := os.WriteFile(link, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := takeWith(t, s, cfg); err == nil {
		t.Fatal("the publish did not fail")
	}
	s.Close()
	os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, cfg)
	s.Close()
	db := readDB(t, cfg)
	if got := statuses(t, db); len(got) != 1 || got[0] != StatusIncomplete {
		t.Fatalf("snapshots after the next run: %v", got)
	}
	want := drifting.AnswerKey().Tables["customers"].Count
	if n := count(t, db, "SELECT count(*) FROM incomplete_customers"); n != want {
		t.Errorf("the incomplete snapshot's customers: %d, want %d", n, want)
	}
}

// A section finishes a publish that a crash cut short after the state
// committed and before the public file was renamed, even when its store
// was opened before the crash: the public file gets the state's latest
// snapshot.
func TestASectionFinishesAPublishCutShort(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 50, Customers: 20}, "")
	cfg := testConfig(srv, t.TempDir())
	if _, err := take(t, cfg); err != nil {
		t.Fatal(err)
	}
	public, info := filepath.Join(cfg.Out, "billsnap.duckdb"), filepath.Join(cfg.Out, ".billsnap", "model.json")
	old, oldInfo := filepath.Join(t.TempDir(), "old.duckdb"), filepath.Join(t.TempDir(), "old.json")
	if err := errors.Join(fileutil.CopyFile(public, old, false), fileutil.CopyFile(info, oldInfo, false)); err != nil {
		t.Fatal(err)
	}
	second, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := OpenShared(context.Background(), cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	// The crash: the public file and what it holds as they were.
	if err := errors.Join(os.Rename(old, public), os.Rename(oldInfo, info)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, ".billsnap", "publish.pending"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := shared.UpdateAndPublish(context.Background(), func(*Section) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var latest string
	if err := readDB(t, cfg).QueryRow("SELECT id FROM latest_snapshot").Scan(&latest); err != nil || latest != second.ID {
		t.Errorf("the public file's latest snapshot: %q (%v), want %s", latest, err, second.ID)
	}
}
