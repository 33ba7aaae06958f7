package job

import (
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// An export that runs past export.deadline stops, naming the deadline,
// and is on record as failed; the snapshot before it stays the latest.
// The service throttles with a Retry-After of 30 s on the fake clock,
// which the waits move past a deadline of one minute.
func TestAnExportPastItsDeadlineStopsAndChangesNothing(t *testing.T) {
	dir := t.TempDir()
	export := func(faults string, deadline time.Duration) (Outcome, error) {
		srv := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 20}, faults)
		cfg := config.Default()
		cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = srv.BaseURL(), srv.FrontURL(), dir, "none"
		cfg.Retry.MaxAttempts, cfg.Retry.MaxRetryAfter, cfg.Export.Deadline = 50, time.Hour, deadline
		log := slog.New(slog.DiscardHandler)
		svc := Service{Secret: extract.NewSecret(sandboxtest.Key), Log: log, Clock: fakeclock.New(time.Now())}
		return exportInStore(cfg, svc)
	}
	first, err := export("", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, err = export("429=0.5,retry-after=30s", time.Minute)
	var de *extract.DeadlineError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "the export ran past its deadline (export.deadline: 1m0s)") {
		t.Fatalf("err %v, want the deadline named", err)
	}
	runs, err := journal.List(layout.Dir(dir).Runs(), time.Now())
	if err != nil || len(runs) != 2 || runs[0].Status != journal.Failed || !strings.Contains(runs[0].Error, "export.deadline: 1m0s") {
		t.Errorf("journal %+v, %v", runs, err)
	}
	db, err := sql.Open("duckdb", filepath.Join(dir, "billsnap.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var latest string
	if err := db.QueryRow("SELECT id FROM latest_snapshot").Scan(&latest); err != nil || latest != first.Snapshot {
		t.Errorf("latest snapshot %q, %v; want the first export's %s", latest, err, first.Snapshot)
	}
}
