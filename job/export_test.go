package job

import (
	"context"
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

// Every retry of an export is a log line at info with its attempt and its
// wait, is on record in the journal with the run, and is counted in the
// metrics; so is every 429.
func TestRetriesAreLoggedRecordedAndCounted(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 20}, "503=0.15,429=0.1,retry-after=2s")
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = srv.BaseURL(), srv.FrontURL(), t.TempDir(), "none"
	cfg.Retry.MaxAttempts = 12 // so that no page gives up (TestRetriesThroughFaults says why)
	var logged syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	svc := Service{Secret: extract.NewSecret(sandboxtest.Key), Log: log, Clock: fakeclock.New(time.Now())}
	out, err := InStore(context.Background(), cfg, Spec{Name: "export"}, log, func(s string) string { return s }, nil,
		func(ctx context.Context, store *snapshot.Store) (Outcome, error) {
			sum, req, err := Export(ctx, cfg, svc, store)
			return ExportOutcome(sum, req), err
		})
	if err != nil || out.Material || out.Retries == 0 || out.Throttles == 0 {
		t.Fatalf("%+v, %v", out, err)
	}
	lines := strings.Count(logged.String(), "level=INFO msg=retrying ") +
		strings.Count(logged.String(), `level=INFO msg="the service throttles: waiting for its Retry-After" `)
	waits := strings.Count(logged.String(), " wait=")
	if int64(lines) != out.Retries || waits < lines || strings.Count(logged.String(), "in_flight=") != int(out.Throttles) {
		t.Errorf("%d retries and %d throttles, %d lines saying so:\n%s", out.Retries, out.Throttles, lines, logged.String())
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
