package readmodel_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// findingRows are the findings of reconciliation (s1, 2026-11) and one of
// another reconciliation, and two rechecks of one finding.
const findingRows = `INSERT INTO findings (snapshot_id, period, rule, severity, entity, entity_id, amount, currency, detail, status,
	first_seen, waived, waiver_reason, waiver_owner, waiver_expires, waiver_id, waiver_by) VALUES
	('s1', '2026-11', 'r2', 'high', 'charge', 'C-1', 10.50, 'EUR', 'Late', 'new', 's1', false, NULL, NULL, NULL, NULL, NULL),
	('s1', '2026-11', 'r1', 'low', 'charge', 'C-2', -3.00, NULL, NULL, 'recurring', 's0', true, 'known', 'ann', DATE '2026-12-31', 'W1', 'bo'),
	('s1', '2026-11', 'r1', 'low', 'charge', 'C-0', 7.00, 'USD', 'late fee', 'resolved', 's0', false, NULL, NULL, NULL, NULL, NULL),
	('s1', '2026-11', 'r2', 'high', 'invoice', 'I-9', 2.25, 'EUR', 'other', 'new', 's1', false, NULL, NULL, NULL, NULL, NULL),
	('s1', '2026-10', 'r2', 'high', 'charge', 'C-1', 99.00, 'EUR', 'Late', 'new', 's1', false, NULL, NULL, NULL, NULL, NULL);
	INSERT INTO rechecks (snapshot_id, rule, entity_id, live, checked_at) VALUES
	('s1', 'r2', 'C-1', 'confirmed', TIMESTAMPTZ '2026-11-05 10:00:00+00'),
	('s1', 'r2', 'C-1', 'gone', TIMESTAMPTZ '2026-11-06 10:00:00+00'),
	('s0', 'r2', 'I-9', 'changed', TIMESTAMPTZ '2026-11-06 10:00:00+00')`

func keys(fs []readmodel.Finding) (out []string) {
	for _, f := range fs {
		out = append(out, f.EntityID)
	}
	return out
}

func TestFindings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, findingRows)
	rules := []string{"r2", "r1"}
	all, err := readmodel.Findings(ctx, db, readmodel.Relations{}, "s1", "2026-11", readmodel.Filter{}, readmodel.Order{Rules: rules}, readmodel.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(all); !slices.Equal(got, []string{"C-1", "I-9", "C-2", "C-0"}) {
		t.Errorf("the reports' order: %v; want rule order, resolved last, then the record", got)
	}
	c1, c2 := all[0], all[2]
	if c1.Live != "gone" || !c1.CheckedAt.Equal(time.Date(2026, 11, 6, 10, 0, 0, 0, time.UTC)) || c1.Amount != money.Amount(1050) {
		t.Errorf("C-1: %+v; want its latest recheck and its amount", c1)
	}
	if all[1].Live != "" || !all[1].CheckedAt.IsZero() {
		t.Errorf("I-9 has a recheck of another snapshot only: %+v", all[1])
	}
	if !c2.Waived || c2.WaiverReason != "known" || c2.WaiverID != "W1" || c2.Currency != "" || c2.Detail != "" ||
		!c2.WaiverExpires.Equal(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("C-2: %+v; want its waiver, NULLs as \"\"", c2)
	}
	no := false
	for _, c := range []struct {
		f    readmodel.Filter
		o    readmodel.Order
		p    readmodel.Page
		want []string
	}{
		{readmodel.Filter{Status: "open"}, readmodel.Order{Rules: rules}, readmodel.Page{}, []string{"C-1", "I-9", "C-2"}},
		{readmodel.Filter{Status: "resolved"}, readmodel.Order{Rules: rules}, readmodel.Page{}, []string{"C-0"}},
		{readmodel.Filter{Currency: ""}, readmodel.Order{Sort: readmodel.SortAmount, Desc: true, Rules: rules}, readmodel.Page{Limit: 2, Offset: 1}, []string{"C-0", "I-9"}},
		{readmodel.Filter{Waived: &no, Q: "LATE"}, readmodel.Order{Sort: readmodel.SortEntityID, Rules: rules}, readmodel.Page{}, []string{"C-0", "C-1"}},
		{readmodel.Filter{Rule: "r2", Severity: "high", Currency: "EUR"}, readmodel.Order{Rules: rules}, readmodel.Page{}, []string{"C-1", "I-9"}},
		{readmodel.Filter{Keys: []string{readmodel.WaiverKey("r2", "I-9"), readmodel.WaiverKey("r1", "I-9")}}, readmodel.Order{Rules: rules}, readmodel.Page{}, []string{"I-9"}},
		{readmodel.Filter{Keys: []string{}}, readmodel.Order{Rules: rules}, readmodel.Page{}, nil},
	} {
		got, err := readmodel.Findings(ctx, db, readmodel.Relations{}, "s1", "2026-11", c.f, c.o, c.p)
		if err != nil || !slices.Equal(keys(got), c.want) {
			t.Errorf("Findings(%+v, %+v, %+v): %v, %v; want %v", c.f, c.o, c.p, keys(got), err, c.want)
		}
		if c.p.Limit != 0 {
			continue
		}
		if n, err := readmodel.CountFindings(ctx, db, "s1", "2026-11", c.f); err != nil || n != len(c.want) {
			t.Errorf("CountFindings(%+v): %d, %v; want %d", c.f, n, err, len(c.want))
		}
	}
	if _, err := readmodel.Findings(ctx, db, readmodel.Relations{}, "s1", "2026-11", readmodel.Filter{}, readmodel.Order{Sort: "amount; DROP TABLE findings"}, readmodel.Page{}); err == nil {
		t.Error("a sort key outside the closed set was taken")
	}
}

func TestFindingsFacetsAndTotals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, findingRows)
	if cs, err := readmodel.Currencies(ctx, db, "s1", "2026-11"); err != nil || !slices.Equal(cs, []string{"", "EUR", "USD"}) {
		t.Errorf("Currencies: %q, %v", cs, err)
	}
	hist, err := readmodel.FindingsOf(ctx, db, "C-1")
	if err != nil || len(hist) != 2 || hist[0].Period != "2026-10" || hist[0].Amount != "99.00" || hist[1].Amount != "10.50" {
		t.Errorf("FindingsOf(C-1): %+v, %v", hist, err)
	}
	totals, err := readmodel.RuleTotals(ctx, db, "s1", "2026-11", []string{"r2", "r1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []readmodel.RuleTotal{
		{Rule: "r2", Currency: "EUR", Count: 2, New: 2, Net: 1275, Gross: 1275},
		{Rule: "r1", Currency: "", Count: 1, Waived: 1, Recurring: 1},
		{Rule: "r1", Currency: "USD", Resolved: 1},
	}
	if !slices.Equal(totals, want) {
		t.Errorf("RuleTotals:\n%+v\nwant\n%+v", totals, want)
	}
}
