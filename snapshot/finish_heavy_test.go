//go:build heavy

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
