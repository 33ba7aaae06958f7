package main

import (
	"testing"
	"time"
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
