package findings

import (
	"maps"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/money"
)

// testRules are three rules of the catalogue's kinds, in order, the
// first the rule that says a snapshot is incomplete.
var testRules = []Rule{
	{ID: IncompleteRule, Severity: "critical"},
	{ID: "charge_not_invoiced", Severity: "high"},
	{ID: "price_mismatch", Severity: "medium"},
	{ID: "orphan_reference", Severity: "low"},
}

// testReport is a reconciliation with findings new, recurring, waived
// and resolved, in three currencies, amounts of both signs.
func testReport() *Report {
	waiver := &Waiver{Rule: "charge_not_invoiced", EntityID: "c3", Reason: "credit note", Owner: "ann"}
	f := func(rule, id string, amount money.Amount, cur, status string) Finding {
		return Finding{Rule: rule, Severity: "x", Entity: "invoice", EntityID: id, Amount: amount, Currency: cur, Status: status,
			Detail: "detail of " + id, FirstSeen: "S1"}
	}
	r := &Report{Rules: testRules, Findings: []Finding{
		f("charge_not_invoiced", "c1", 12000, "EUR", StatusNew),
		f("charge_not_invoiced", "c2", 2500, "USD", StatusRecurring),
		f("charge_not_invoiced", "c3", 99900, "EUR", StatusRecurring),
		f("price_mismatch", "p1", -4000, "USD", StatusNew),
		f("price_mismatch", "p2", 1000, "EUR", StatusNew),
		f("charge_not_invoiced", "c9", 50000, "EUR", StatusResolved),
		f("price_mismatch", "p9", -70000, "DKK", StatusResolved),
	}, NotJudged: map[string]int{"orphan_reference": 4}, HeldBack: map[string]int{"orphan_reference": 1}}
	r.Findings[2].Waiver = waiver
	return r
}

// A rule's totals count its findings of this snapshot, waived included,
// by status, and add its unwaived findings' amounts per currency, signed
// and absolute; resolved findings are counted apart and add nothing. The
// currency totals are the rules' together, net and gross.
func TestTotalsAddEachRulesFindings(t *testing.T) {
	t.Parallel()
	totals := testReport().Totals()
	if len(totals) != len(testRules) {
		t.Fatalf("%d totals, want one a rule (%d)", len(totals), len(testRules))
	}
	want := []RuleTotal{
		{Rule: testRules[0], Amounts: map[string]money.Amount{}, AtStake: map[string]money.Amount{}},
		{Rule: testRules[1], Count: 3, Waived: 1, New: 1, Recurring: 2, Resolved: 1,
			Amounts: map[string]money.Amount{"EUR": 12000, "USD": 2500}, AtStake: map[string]money.Amount{"EUR": 12000, "USD": 2500}},
		{Rule: testRules[2], Count: 2, New: 2, Resolved: 1,
			Amounts: map[string]money.Amount{"USD": -4000, "EUR": 1000}, AtStake: map[string]money.Amount{"USD": 4000, "EUR": 1000}},
		{Rule: testRules[3], Amounts: map[string]money.Amount{}, AtStake: map[string]money.Amount{}, NotJudged: 4, HeldBack: 1},
	}
	for i, got := range totals {
		w := want[i]
		if got.Rule != w.Rule || got.Count != w.Count || got.Waived != w.Waived || got.New != w.New || got.Recurring != w.Recurring ||
			got.Resolved != w.Resolved || got.NotJudged != w.NotJudged || got.HeldBack != w.HeldBack ||
			!maps.Equal(got.Amounts, w.Amounts) || !maps.Equal(got.AtStake, w.AtStake) {
			t.Errorf("%s: %+v\nwant %+v", w.Rule.ID, got, w)
		}
	}
	cur := testReport().CurrencyTotals()
	wantCur := map[string]CurrencyTotal{"EUR": {Net: 13000, Gross: 13000}, "USD": {Net: -1500, Gross: 6500}}
	if !maps.Equal(cur, wantCur) {
		t.Errorf("currency totals %v, want %v", cur, wantCur)
	}
	if got := Currencies(cur); !slices.Equal(got, []string{"EUR", "USD"}) {
		t.Errorf("currencies %v", got)
	}
}

// Judge names each rule whose unwaived findings reach its own threshold,
// else its severity's, by count or by one currency's amount at stake;
// the incomplete snapshot is material whatever the thresholds; waived
// and resolved findings count for nothing.
func TestJudgeSaysWhyARunIsMaterial(t *testing.T) {
	t.Parallel()
	incomplete := testReport()
	incomplete.Findings = append(incomplete.Findings, Finding{Rule: IncompleteRule, EntityID: "invoices", Status: StatusNew})
	allWaived := testReport()
	for i := range allWaived.Findings {
		allWaived.Findings[i].Waiver = &Waiver{}
	}
	for _, c := range []struct {
		name string
		r    *Report
		m    Materiality
		want []string
	}{
		{"the default: any critical or high", testReport(), DefaultMateriality(),
			[]string{"charge_not_invoiced (high): 2 unwaived findings, threshold 1"}},
		{"no thresholds", testReport(), Materiality{}, nil},
		{"a rule's own threshold before its severity's", testReport(),
			Materiality{Severities: map[string]Threshold{"high": {Count: 1}}, Rules: map[string]Threshold{"charge_not_invoiced": {Count: 3}}}, nil},
		{"a rule's own threshold reached", testReport(),
			Materiality{Rules: map[string]Threshold{"price_mismatch": {Count: 2}}}, []string{"price_mismatch (medium): 2 unwaived findings, threshold 2"}},
		{"an amount at stake in one currency, the largest", testReport(), Materiality{Severities: map[string]Threshold{"medium": {Amount: "40.00"}}},
			[]string{"price_mismatch (medium): 40.00 USD at stake, threshold 40.00"}},
		{"the largest amount at stake, whichever currency sorts first", testReport(),
			Materiality{Rules: map[string]Threshold{"charge_not_invoiced": {Amount: "100.00"}}},
			[]string{"charge_not_invoiced (high): 120.00 EUR at stake, threshold 100.00"}},
		{"an amount not reached in any one currency", testReport(), Materiality{Severities: map[string]Threshold{"medium": {Amount: "40.01"}}}, nil},
		{"the waived and resolved not counted", testReport(), Materiality{Rules: map[string]Threshold{"charge_not_invoiced": {Count: 3}}}, nil},
		{"all waived", allWaived, DefaultMateriality(), nil},
		{"an incomplete snapshot, whatever the thresholds", incomplete, Materiality{},
			[]string{IncompleteRule + ": 1 collection incomplete; the other rules are not trusted"}},
	} {
		got := c.r.Judge(c.m)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// MaterialRules are the rules Material names, in its order.
func TestMaterialRulesAreTheRulesNamed(t *testing.T) {
	t.Parallel()
	r := &Report{Material: []string{IncompleteRule + ": 1 collection incomplete; the other rules are not trusted",
		"price_mismatch (medium): 40.00 USD at stake, threshold 40.00", "charge_not_invoiced (high): 2 unwaived findings, threshold 1"}}
	if got, want := r.MaterialRules(), []string{IncompleteRule, "price_mismatch", "charge_not_invoiced"}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// StillMaterial judges without the findings a recheck found changed or
// gone in the service.
func TestStillMaterialLeavesOutWhatTheServiceNoLongerHolds(t *testing.T) {
	t.Parallel()
	r := testReport()
	r.Findings[0].Live, r.Findings[1].Live = "gone", "changed"
	if got := r.StillMaterial(DefaultMateriality()); len(got) != 0 {
		t.Errorf("still material: %q", got)
	}
	r.Findings[1].Live = "confirmed"
	if got, want := r.StillMaterial(DefaultMateriality()), []string{"charge_not_invoiced (high): 1 unwaived finding, threshold 1"}; !slices.Equal(got, want) {
		t.Errorf("still material: %q, want %q", got, want)
	}
	if len(r.Findings) != 7 {
		t.Errorf("StillMaterial changed the report's findings: %d", len(r.Findings))
	}
}

// testDigest is the digest of testReport's open findings: a sign-off
// records it in the ledger, so it must not change between versions
// (computed apart from billsnap: SHA-256 of the five sorted lines).
const testDigest = "1167835316ea006c72612aa75c4e1fe768c65d4c47c75288e75505770eb272a4"

// The digest a sign-off signs is over the open findings' rule, record,
// amount, currency and waived, whatever their order and whatever else a
// finding or the report says; it changes with any of those five.
func TestDigestSignsTheOpenFindings(t *testing.T) {
	t.Parallel()
	digest, n := testReport().Digest()
	if digest != testDigest || n != 5 {
		t.Fatalf("digest %s of %d findings, want %s of 5", digest, n, testDigest)
	}
	same := map[string]func(*Report){
		"the findings reversed": func(r *Report) { slices.Reverse(r.Findings) },
		"a resolved one more":   func(r *Report) { r.Findings = append(r.Findings, Finding{Rule: "x", Status: StatusResolved}) },
		"details, statuses, customers, rechecks": func(r *Report) {
			for i := range r.Findings {
				f := &r.Findings[i]
				f.Detail, f.FirstSeen, f.CustomerName, f.Live = "other", "S0", "Nordlys", "gone"
				if f.Status == StatusNew {
					f.Status = StatusRecurring
				}
			}
		},
		"the report's other fields": func(r *Report) { r.Rules, r.Material, r.Previous = nil, []string{"x"}, "S0" },
		"another waiver":            func(r *Report) { r.Findings[2].Waiver = &Waiver{Reason: "other"} },
	}
	differs := map[string]func(*Report){
		"an amount":            func(r *Report) { r.Findings[0].Amount++ },
		"a currency":           func(r *Report) { r.Findings[0].Currency = "DKK" },
		"a rule":               func(r *Report) { r.Findings[3].Rule = "orphan_reference" },
		"a record":             func(r *Report) { r.Findings[4].EntityID = "p3" },
		"waived":               func(r *Report) { r.Findings[0].Waiver = &Waiver{} },
		"unwaived":             func(r *Report) { r.Findings[2].Waiver = nil },
		"an open one fewer":    func(r *Report) { r.Findings = r.Findings[1:] },
		"an open one resolved": func(r *Report) { r.Findings[0].Status = StatusResolved },
	}
	for name, edit := range same {
		r := testReport()
		edit(r)
		if d, m := r.Digest(); d != testDigest || m != n {
			t.Errorf("%s: digest changed (%s, %d)", name, d, m)
		}
	}
	for name, edit := range differs {
		r := testReport()
		edit(r)
		if d, _ := r.Digest(); d == testDigest {
			t.Errorf("%s: digest unchanged", name)
		}
	}
}
