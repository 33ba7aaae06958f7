//go:build heavy

package reconcile

import (
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/sandbox"
)

// A period's reconciliation of a snapshot whose previous snapshot was
// reconciled whole (as the nightly run does), not for that period,
// compares with that whole reconciliation: a finding it had is recurring,
// first seen there, and none is called resolved for want of the period's
// own; the next snapshot's reconciliation of the period compares with the
// period's, and resolves what it no longer finds.
func TestAPeriodComparesWithTheWholeReconciliationBefore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{Seed: 62, Customers: 80, Planted: 1})
	s1 := e.export()
	whole := e.reconcile(Options{})
	var period *findings.Period
	for _, inv := range e.srv.Dataset().Invoices {
		if foundFor(whole, inv.ID) {
			period = findings.MonthOf(inv.InvoiceDate, 0)
			break
		}
	}
	if period == nil {
		t.Fatal("no finding about an invoice to pick a period by")
	}
	had := map[string]bool{}
	for _, f := range whole.Open() {
		had[f.Rule+" "+f.EntityID] = true
	}

	s2 := e.export()
	r2 := e.reconcile(Options{Period: period})
	if r2.Previous != s1.ID {
		t.Fatalf("compared with %q, want %s", r2.Previous, s1.ID)
	}
	recurring := 0
	for _, f := range r2.Findings {
		switch {
		case f.Status == findings.StatusResolved:
			t.Errorf("resolved against a whole reconciliation: %+v", f)
		case had[f.Rule+" "+f.EntityID] && (f.Status != findings.StatusRecurring || f.FirstSeen != s1.ID):
			t.Errorf("%s %s was in %s's reconciliation, yet is %s, first seen %s", f.Rule, f.EntityID, s1.ID, f.Status, f.FirstSeen)
		case !had[f.Rule+" "+f.EntityID] && (f.Status != findings.StatusNew || f.FirstSeen != s2.ID):
			t.Errorf("%s %s is new in %s, yet is %s, first seen %s", f.Rule, f.EntityID, s2.ID, f.Status, f.FirstSeen)
		case f.Status == findings.StatusRecurring:
			recurring++
		}
	}
	if recurring == 0 || recurring < len(r2.Findings)/2 {
		t.Errorf("%d of %s's %d findings recur; most should", recurring, period, len(r2.Findings))
	}

	e.export()
	r3 := e.reconcile(Options{Period: period})
	if r3.Previous != s2.ID {
		t.Fatalf("compared with %q, want %s", r3.Previous, s2.ID)
	}
	for _, f := range r3.Findings {
		if f.Status != findings.StatusRecurring || f.FirstSeen != r2First(r2, f) {
			t.Errorf("third snapshot, period %s: %+v", period, f)
		}
	}
}
