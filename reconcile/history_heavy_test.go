//go:build heavy

package reconcile

import (
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/sandbox"
)

// History over three snapshots: a finding resolved by a pause, a new one
// made by marking an unpaid invoice paid, the rest recurring since the
// first snapshot; the trend counts every reconciliation (checkTrend).
func TestHistoryOverThreeSnapshots(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{Seed: 62, Customers: 80, Planted: 1})
	s1 := e.export()
	r1 := e.reconcile(Options{})
	for _, f := range r1.Findings {
		if f.Status != findings.StatusNew || f.FirstSeen != s1.ID {
			t.Fatalf("first reconciliation: %+v", f)
		}
	}
	missed := only(r1.Findings, "missed_billing_run")[0]
	var sub, open string
	for _, c := range e.srv.Dataset().Charges {
		if c.ID == missed.EntityID {
			sub = c.SubscriptionID
		}
	}
	paidFor := map[string]bool{}
	for _, tx := range e.srv.Dataset().Transactions {
		if tx.InvoiceID != nil {
			paidFor[*tx.InvoiceID] = true
		}
	}
	for _, inv := range e.srv.Dataset().Invoices {
		if inv.PaymentDate == nil && !paidFor[inv.ID] && open == "" && !foundFor(r1, inv.ID) {
			open = inv.ID
		}
	}
	e.put("/v3/subscriptions/"+sub+"/pause", "")
	e.put("/v3/invoices/"+open+"/markpaid/", `{"PaymentDate":"2026-11-20T10:00:00Z"}`)

	s2 := e.export()
	r2 := e.reconcile(Options{})
	for _, f := range r2.Findings {
		switch {
		case f.Rule == "missed_billing_run" && f.EntityID == missed.EntityID:
			if f.Status != findings.StatusResolved || f.FirstSeen != s1.ID {
				t.Errorf("the paused subscription's finding: %+v", f)
			}
		case f.Rule == "paid_without_payment" && f.EntityID == open:
			if f.Status != findings.StatusNew || f.FirstSeen != s2.ID {
				t.Errorf("the new finding: %+v", f)
			}
		case f.Status != findings.StatusRecurring || f.FirstSeen != s1.ID:
			t.Errorf("second reconciliation, an unchanged finding: %+v", f)
		}
	}
	if len(r2.Findings) != len(r1.Findings)+1 {
		t.Errorf("%d findings then %d (with the resolved one)", len(r1.Findings), len(r2.Findings))
	}

	e.export()
	r3 := e.reconcile(Options{})
	for _, f := range r3.Findings {
		want := s1.ID
		if f.EntityID == open {
			want = s2.ID
		}
		if f.Status != findings.StatusRecurring || f.FirstSeen != want || f.EntityID == missed.EntityID {
			t.Errorf("third reconciliation: %+v (first seen want %s)", f, want)
		}
	}
	if len(r3.Findings) != len(r1.Findings) {
		t.Errorf("third reconciliation has %d findings, want %d", len(r3.Findings), len(r1.Findings))
	}
	checkTrend(t, e, r3)
}

// Rule 15: between two snapshots a paid invoice changes and another one
// goes; an unpaid one changing is no finding. The sandbox has nothing
// planted: the first snapshot, clean data, gives no finding at all
// (checkClean; the heavy tier takes four seeds more).
func TestPaidInvoiceChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{Seed: 61, Customers: 150})
	first := e.export()
	var changed, gone, unpaid *sandbox.Invoice
	for _, inv := range e.srv.Dataset().Invoices {
		switch {
		case inv.PaymentDate != nil && changed == nil:
			changed = inv
		case inv.PaymentDate != nil && gone == nil:
			gone = inv
		case inv.PaymentDate == nil && unpaid == nil:
			unpaid = inv
		}
	}
	goneTotal := gone.TotalAmount
	grow := func(r any) {
		inv := r.(*sandbox.Invoice)
		inv.TotalAmount += 2500
		inv.InvoiceLines[0].Amount += 2500
	}
	if e.srv.Change("Invoices", changed.ID, grow) != nil || e.srv.Change("Invoices", unpaid.ID, grow) != nil || e.srv.Remove("Invoices", gone.ID) != nil {
		t.Fatal("back office change failed")
	}
	e.export()
	r := e.reconcile(Options{})
	if r.Previous != first.ID {
		t.Fatalf("previous snapshot %q, want %q", r.Previous, first.ID)
	}
	got := map[string]money.Amount{}
	for _, f := range only(r.Findings, "paid_invoice_changed") {
		got[f.EntityID] = f.Amount
	}
	want := map[string]money.Amount{changed.ID: 2500, gone.ID: -money.Amount(goneTotal)}
	if len(got) != 2 || got[changed.ID] != want[changed.ID] || got[gone.ID] != want[gone.ID] {
		t.Errorf("paid_invoice_changed: %v, want %v", got, want)
	}
	r1 := e.reconcile(Options{SnapshotID: first.ID})
	if len(only(r1.Findings, "paid_invoice_changed")) != 0 {
		t.Error("the first snapshot, with nothing before it, has rule 15 findings")
	}
	checkClean(t, 61, r1)
}
