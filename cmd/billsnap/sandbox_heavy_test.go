//go:build heavy

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// Two demos of the same seed, run at other clocks (on either side of an
// hour and a day apart), print the same findings and totals. The clocks
// are the last hour's and a day before it: the demo reconciles as of its
// export, on the real clock, so a --now days old finds the billing runs
// missed since, beyond reconcile.grace (fixed dates, 2026-11-25T17:59:59Z
// and a day after, failed from 2026-11-28T18:00Z on).
func TestTwoDemosPrintTheSameTotals(t *testing.T) {
	t.Parallel()
	var first string
	hour := time.Now().UTC().Truncate(time.Hour)
	for _, now := range []string{hour.Add(-24*time.Hour - time.Second).Format(time.RFC3339), hour.Format(time.RFC3339)} {
		var out, errb bytes.Buffer
		args := []string{"demo", "--out", t.TempDir(), "--progress", "none", "--customers", "30", "--now", now}
		if code := e2etest.RunTuned(context.Background(), args, &out, &errb, e2etest.NoEnv); code != job.ExitOK {
			t.Fatalf("demo exit %d: %s", code, errb.String())
		}
		if !strings.Contains(out.String(), "now "+now) {
			t.Errorf("the demo does not say it ran at %s", now)
		}
		totals := totalsOf(out.String())
		if strings.Count(totals, "\n") < 16 {
			t.Fatalf("the demo printed %q as its totals:\n%s", totals, out.String())
		}
		if first == "" {
			first = totals
		} else if totals != first {
			t.Errorf("at %s the demo printed\n%s\nwhere the first printed\n%s", now, totals, first)
		}
	}
}
