package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
)

// A timing spans --span: an operation that takes less is run that often
// more, rounded up, between 1 and maxRuns; the stores alternate who goes
// first; the medians are of the timings' wall and CPU apart.
func TestHistoryTimings(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		span, took time.Duration
		want       int
	}{
		{500 * ms, 40 * ms, 13}, {500 * ms, 250 * ms, 2}, {500 * ms, 251 * ms, 2}, {500 * ms, 600 * ms, 1},
		{500 * ms, ms, maxRuns}, {0, 40 * ms, 1}, {500 * ms, 0, maxRuns},
	} {
		if got := runsIn(c.span, c.took); got != c.want {
			t.Errorf("runsIn(%s, %s) = %d, want %d", c.span, c.took, got, c.want)
		}
	}
	stores := []historyStore{{name: "fresh"}, {name: "history"}}
	if a, b := inTurn(stores, 0), inTurn(stores, 1); a[0].name != "fresh" || b[0].name != "history" || b[1].name != "fresh" {
		t.Errorf("rounds 0 and 1 run %s, %s first; want fresh, then history", a[0].name, b[0].name)
	}
	samples := []sample{{wall: 5 * ms, cpu: 1 * ms}, {wall: 1 * ms, cpu: 9 * ms}, {wall: 3 * ms, cpu: 4 * ms}}
	if w, c := medianOf(samples, wallOf), medianOf(samples, cpuOf); w != 3*ms || c != 4*ms {
		t.Errorf("medians %s and %s, want 3ms and 4ms", w, c)
	}
}

// The history's export and reconcile are timed as billsnap's commands run
// them: each a run in the store's journal, the metrics file refreshed
// after it, which grow with the history as the store does.
func TestHistoryTimesRecordedRuns(t *testing.T) {
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{APIKey: benchKey, Data: sandbox.Options{Seed: 1, Customers: 3, Planted: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := historyConfig(srv.URL, t.TempDir())
	jobs := []string{"export", "reconcile"}
	for _, name := range jobs {
		i := slices.IndexFunc(historyOps, func(op historyOp) bool { return op.name == name })
		os.Remove(filepath.Join(cfg.Out, cfg.MetricsFile))
		if err := historyOps[i].fn(context.Background(), cfg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(cfg.Out, cfg.MetricsFile)); err != nil {
			t.Errorf("%s refreshed no metrics file: %v", name, err)
		}
	}
	runs, err := journal.List(layout.Dir(cfg.Out).Runs(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append([]string{r.Job}, got...) // the journal lists the newest first
	}
	if !slices.Equal(got, jobs) {
		t.Errorf("the journal's runs %v, want one of each operation timed: %v", got, jobs)
	}
}
