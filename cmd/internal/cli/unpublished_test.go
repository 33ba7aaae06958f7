package cli

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/snapshot"
)

// A store opened and not yet published (its first export under way, or
// stopped before its snapshot began) has no read model: query says so in
// one line, exit 2 (no store where a read command looks), and status
// still shows the runs.
func TestAStoreNotYetPublishedIsNoneToQuery(t *testing.T) {
	t.Parallel()
	cfg, store := openedStore(t)
	store.Close()
	code, out, stderr := queryOut(t, cfg.Out, "SELECT 1")
	if code != job.ExitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "run billsnap export first") {
		t.Errorf("query: exit %d, stdout %q, stderr %q; want exit 2 and one line", code, out, stderr)
	}
	var stdout, errb bytes.Buffer
	if code := runWith(context.Background(), []string{"status", "--out", cfg.Out}, &stdout, &errb, noEnv); code != job.ExitOK {
		t.Errorf("status: exit %d, stderr %q", code, errb.String())
	}
}

// openedStore is a new store, opened (the caller closes it): no snapshot,
// nothing published.
func openedStore(t *testing.T) (config.Config, *snapshot.Store) {
	t.Helper()
	cfg := config.Default()
	cfg.Out = t.TempDir()
	store, err := snapshot.Open(context.Background(), cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, store
}
