package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot"
)

// exportInStore runs one export of cfg, as billsnap export does: in
// the store, the export lock held, its run in the journal.
func exportInStore(cfg config.Config, svc Service) (Outcome, error) {
	return InStore(context.Background(), cfg, Spec{Name: "export", ExportLock: true}, svc.Log, func(s string) string { return s }, nil,
		func(ctx context.Context, store *snapshot.Store) (Outcome, error) {
			sum, req, err := Export(ctx, cfg, svc, store)
			return ExportOutcome(sum, req), err
		})
}

// Every retry of an export is a log line at debug with its attempt and
// its wait (at info, the first of each cause and then a summary), is on
// record in the journal with the run, and is counted in the metrics; so is
// every 429.
func TestRetriesAreLoggedRecordedAndCounted(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 20}, "503=0.15,429=0.1,retry-after=2s")
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = srv.BaseURL(), srv.FrontURL(), t.TempDir(), "none"
	cfg.Retry.MaxAttempts = 12 // so that no page gives up (TestRetriesThroughFaults says why)
	var logged syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := Service{Secret: extract.NewSecret(sandboxtest.Key), Log: log, Clock: fakeclock.New(time.Now())}
	out, err := exportInStore(cfg, svc)
	if err != nil || out.Material || out.Retries == 0 || out.Throttles == 0 {
		t.Fatalf("%+v, %v", out, err)
	}
	var debug, info []string
	for line := range strings.Lines(logged.String()) {
		switch {
		case strings.Contains(line, "level=DEBUG msg=retrying ") || strings.Contains(line, `level=DEBUG msg="the service throttles: waiting for its Retry-After" `):
			debug = append(debug, line)
		case strings.Contains(line, `level=INFO msg="retrying: HTTP 503`) || strings.Contains(line, `level=INFO msg="the service throttles: waiting for its Retry-After: HTTP 429`):
			info = append(info, line)
		}
	}
	lines := strings.Join(debug, "")
	if int64(len(debug)) != out.Retries || strings.Count(lines, " wait=") != len(debug) || strings.Count(lines, "in_flight=") != int(out.Throttles) {
		t.Errorf("%d retries and %d throttles, %d debug lines saying so:\n%s", out.Retries, out.Throttles, len(debug), logged.String())
	}
	if len(info) < 2 || len(info) >= len(debug) {
		t.Errorf("%d info lines of retries, for %d retries of two causes:\n%s", len(info), len(debug), strings.Join(info, ""))
	}
	runs, err := journal.List(layout.Dir(cfg.Out).Runs(), time.Now())
	if err != nil || len(runs) != 1 || runs[0].Requests != out.Requests {
		t.Errorf("journal %+v, %v; want %+v", runs, err, out.Requests)
	}
	prom, _ := os.ReadFile(filepath.Join(cfg.Out, cfg.MetricsFile))
	for _, want := range []string{
		fmt.Sprintf(`billsnap_retries_total{job="export"} %d`, out.Retries),
		fmt.Sprintf(`billsnap_throttles_total{job="export"} %d`, out.Throttles),
	} {
		if !strings.Contains(string(prom), want+"\n") {
			t.Errorf("the metrics lack %q:\n%s", want, prom)
		}
	}
}

// An export that never reached the service leaves no directory it made;
// into a store that was there, its failure is on record.
func TestAnExportThatNeverReachedTheServiceLeavesNoDirectory(t *testing.T) {
	for _, existed := range []bool{false, true} {
		cfg := config.Default()
		cfg.BaseURL, cfg.FrontURL, cfg.Progress = "http://127.0.0.1:1", "http://127.0.0.1:1", "none"
		cfg.Out = filepath.Join(t.TempDir(), "store")
		if existed {
			os.Mkdir(cfg.Out, 0o755)
		}
		log := slog.New(slog.DiscardHandler)
		svc := Service{Secret: extract.NewSecret("k"), Log: log, Clock: fakeclock.New(time.Now())}
		_, err := exportInStore(cfg, svc)
		if !errors.Is(err, ErrUnreached) || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("existed %v: %v, want the service unreached", existed, err)
		}
		_, statErr := os.Stat(cfg.Out)
		if existed {
			runs, err := journal.List(layout.Dir(cfg.Out).Runs(), time.Now())
			if statErr != nil || err != nil || len(runs) != 1 || runs[0].Status != journal.Failed {
				t.Errorf("a store that was there: %v, runs %+v (%v)", statErr, runs, err)
			}
		} else if !errors.Is(statErr, os.ErrNotExist) {
			t.Errorf("the export left %s behind (%v)", cfg.Out, statErr)
		}
	}
}
