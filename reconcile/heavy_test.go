//go:build heavy

package reconcile

import "testing"

// The heavy tier of the reconciliation's integration checks (.ci/run runs
// it with -tags heavy): the seeds and cases the fast tier leaves out.

func TestFindingsEqualTheAnswerKeyEverySeed(t *testing.T) {
	t.Parallel()
	findingsEqualTheAnswerKey(t, 2, 3, 4, 5, 6, 7, 8)
}

func TestEveryIncompleteSnapshotIsUntrusted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ faults, table string }{
		{"totalcount=Contacts", "contacts"},
		{"move=Invoices@1/0", "invoices"},
	} {
		t.Run(tc.faults, func(t *testing.T) { incompleteIsUntrusted(t, tc.faults, tc.table) })
	}
}

func TestCleanDataGivesNoFindingEverySeed(t *testing.T) {
	t.Parallel()
	cleanDataGivesNoFinding(t, 100, 101, 102, 103)
}

func TestVariantTypesChangeNoFinding(t *testing.T) {
	t.Parallel()
	variantTypesChangeNoFinding(t, 1, 2, 3)
}

// Over four seeds every rule's "not judged" query is exercised: some
// finding of each rule is held back or said not judged.
func TestUntypedValuesEverySeed(t *testing.T) {
	t.Parallel()
	exercised := untypedValuesRaiseNoFinding(t, 1, 2, 3, 4)
	for _, rule := range []string{"charge_not_invoiced", "zero_quantity_invoiced", "quantity_mismatch", "price_mismatch", "duplicate_invoicing",
		"invoice_total_mismatch", "missed_billing_run", "missing_product_charge", "orphan_reference", "paid_without_payment",
		"payment_without_invoice", "payment_amount_mismatch", "currency_mismatch"} {
		if exercised[rule] == 0 {
			t.Errorf("rule %s: no finding held back or said not judged over all seeds; its query is not exercised (%v)", rule, exercised)
		}
	}
}
