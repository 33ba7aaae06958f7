package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/ledger"
)

// Each line of the flux review says its figures and its state: within the
// threshold, not explained, explained (the text on one line), or its
// explanation stale.
func TestFluxLinesSayEachLinesState(t *testing.T) {
	o := flux.DefaultOptions()
	x := &ledger.Explained{Explanation: ledger.Explanation{ID: "X4", Previous: "1000.00", Current: "9000.00", Text: "renewals\nin October"}, By: "erin",
		At: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
	explained := o.Line(flux.Billed, "EUR", 100000, 900000)
	explained.Explanation = x
	stale := o.Line(flux.Collected, "EUR", 100000, 700000)
	stale.Explanation, stale.Stale = x, true
	in := &Input{Flux: &Flux{Period: "2026-10", Previous: "2026-09", Lines: []flux.Line{explained, stale,
		o.Line(flux.Credited, "USD", 0, 500000), o.Line(flux.OpenReceivables, "USD", 100, 200)}}}
	got := strings.Join(in.FluxLines(), "\n")
	for _, want := range []string{
		"billed EUR: 1,000.00 → 9,000.00, change 8,000.00 (800.00%); over the threshold, explained by erin, 2026-11-02 09:00:00 UTC (X4): “renewals in October”",
		"collected EUR: 1,000.00 → 7,000.00, change 6,000.00 (600.00%); over the threshold; its explanation X4 (for 1000.00 → 9000.00) is stale",
		"credited USD: 0.00 → 5,000.00, change 5,000.00; over the threshold, not explained",
		"open_receivables USD: 1.00 → 2.00, change 1.00 (100.00%); within the threshold",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the flux lines lack %q:\n%s", want, got)
		}
	}
	if (&Input{}).FluxLines() != nil {
		t.Error("a report without a review has flux lines")
	}
}
