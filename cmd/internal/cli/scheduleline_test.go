package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/schedule"
)

// A scheduled run logs one line saying how it ended, with its snapshot,
// findings, why it is material and how long it took, and prints nothing
// else: no Markdown summary into the service's journal on every tick.
func TestAScheduledRunIsOneLine(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 87, Customers: 30, Planted: 1}, "")
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = srv.BaseURL(), srv.FrontURL(), filepath.Join(t.TempDir(), "out"), "none"
	oneThread(&cfg)
	var stdout, stderr bytes.Buffer
	env := newEnv(&stdout, &stderr, noEnv)
	sc := schedule.Schedule{Name: "nightly", Spec: "0 3 * * *", Job: "run"}
	env.scheduled(context.Background(), cfg, func() (*extract.Secret, error) { return extract.NewSecret(exportKey), nil }, sc, schedule.NewMetrics(), nil)
	if stdout.Len() > 0 {
		t.Errorf("a scheduled run printed %d bytes to stdout:\n%.300s", stdout.Len(), stdout.String())
	}
	var ends []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, `msg="run `) || strings.Contains(l, "msg=run") {
			ends = append(ends, l)
		}
	}
	if len(ends) != 1 {
		t.Fatalf("%d lines of the run's end, want 1:\n%s", len(ends), stderr.String())
	}
	for _, want := range []string{`msg="run found something material"`, "schedule=nightly", "job=run", "snapshot=", "findings=", "material=", "seconds="} {
		if !strings.Contains(ends[0], want) {
			t.Errorf("the run's line lacks %s: %s", want, ends[0])
		}
	}
	if strings.Contains(ends[0], "snapshot=- ") {
		t.Errorf("the run's line names no snapshot: %s", ends[0])
	}
}
