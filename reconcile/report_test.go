package reconcile

import (
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
)

// Money not invoiced and money invoiced twice do not cancel out of the
// gross total; waived and resolved findings count in neither.
func TestCurrencyTotalsAreNetAndGross(t *testing.T) {
	t.Parallel()
	eur := func(s string) money.Amount {
		a, err := money.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	r := &findings.Report{Rules: []findings.Rule{{ID: "charge_not_invoiced"}, {ID: "duplicate_invoicing"}}, Findings: []findings.Finding{
		{Rule: "charge_not_invoiced", Amount: eur("333.00"), Currency: "EUR", Status: findings.StatusNew},
		{Rule: "duplicate_invoicing", Amount: eur("-333.00"), Currency: "EUR", Status: findings.StatusRecurring},
		{Rule: "duplicate_invoicing", Amount: eur("-5.00"), Currency: "USD", Status: findings.StatusNew},
		{Rule: "charge_not_invoiced", Amount: eur("100.00"), Currency: "EUR", Status: findings.StatusNew, Waiver: &findings.Waiver{}},
		{Rule: "charge_not_invoiced", Amount: eur("7.00"), Currency: "EUR", Status: findings.StatusResolved},
	}}
	got := r.CurrencyTotals()
	want := map[string]findings.CurrencyTotal{"EUR": {Net: 0, Gross: eur("666.00")}, "USD": {Net: eur("-5.00"), Gross: eur("5.00")}}
	if len(got) != len(want) || got["EUR"] != want["EUR"] || got["USD"] != want["USD"] {
		t.Errorf("totals %v, want %v", got, want)
	}
}
