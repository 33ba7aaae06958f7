package readmodel_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// The overview's one query gives what RuleTotals and Pending give (the
// rules table, whatever the rules' order names), and marks the findings
// the keys name.
func TestOverviewRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, findingRows)
	c1, i9 := readmodel.WaiverKey("r2", "C-1"), readmodel.WaiverKey("r2", "I-9")
	rows, err := readmodel.OverviewRows(ctx, db, "s1", "2026-11", []string{c1}, []string{c1, i9, c1}, []string{i9, readmodel.WaiverKey("r1", "C-2")})
	if err != nil {
		t.Fatal(err)
	}
	// (With no rule named, RuleTotals orders by currency alone, the rules
	// interleaved; OverviewTotals keeps a rule's lines together.)
	for _, rules := range [][]string{{"r2", "r1"}, {"r1", "r2"}, {"r2"}} {
		want, err := readmodel.RuleTotals(ctx, db, "s1", "2026-11", rules)
		if err != nil {
			t.Fatal(err)
		}
		if got := readmodel.OverviewTotals(rows, rules); !slices.Equal(got, want) {
			t.Errorf("rules %q: OverviewTotals\n%+v\nRuleTotals\n%+v", rules, got, want)
		}
	}
	want, err := readmodel.Pending(ctx, db, "s1", "2026-11", []string{i9, readmodel.WaiverKey("r1", "C-2")})
	if got := readmodel.OverviewPending(rows); err != nil || fmt.Sprint(got) != fmt.Sprint(want) || got["r2"] != 1 {
		t.Errorf("OverviewPending %v, Pending %v (%v)", got, want, err)
	}
	var marked []string
	for _, r := range rows {
		if r.Open() {
			marked = append(marked, fmt.Sprintf("%s %s first %s overdue %t assigned %t pending %t: %d, %s/%s", r.Rule, r.Currency, r.FirstSeen,
				r.Overdue, r.Assigned, r.Pending, r.N, r.Net, r.Gross))
		}
	}
	wantMarked := []string{"r2 EUR first s1 overdue false assigned true pending true: 1, 2.25/2.25", "r2 EUR first s1 overdue true assigned true pending false: 1, 10.50/10.50"}
	if !slices.Equal(marked, wantMarked) {
		t.Errorf("the open rows:\n%q\nwant\n%q", marked, wantMarked)
	}
}
