package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox/variants"
)

func TestParseVariants(t *testing.T) {
	f, err := ParseFaults(`variants=0.3,untyped=0.05,rename=Invoices.InvoiceNumber:InvoiceNo,set=PaymentMethods.Active@2:"maybe"`)
	if err != nil {
		t.Fatal(err)
	}
	v := f.Variants
	if v.Coercible != 0.3 || v.Untyped != 0.05 || v.Renames[0] != (variants.Rename{Collection: "invoices", Field: "InvoiceNumber", As: "InvoiceNo"}) ||
		v.Sets[0] != (variants.Set{Collection: "paymentmethods", Field: "Active", Record: 2, JSON: `"maybe"`}) {
		t.Errorf("parsed %+v", v)
	}
	for _, bad := range []string{"variants=2", "rename=Invoices:X", "rename=Invoices.A", "set=Invoices.A:1", "set=Invoices.A@0:1", "set=Invoices.A@1:{x"} {
		if _, err := ParseFaults(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseFaults(%q) = %v, want an error naming it", bad, err)
		}
	}
}

// A varied record is sent the same way on every page served, renamed and
// set fields as asked, and the spec's fields and every ID never vary.
func TestVariantsAreStableAndSpareTheContract(t *testing.T) {
	o := Options{Seed: 5, Customers: 20, Planted: 1, Now: time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)}
	faults := `variants=0.6,untyped=0.3,rename=Invoices.InvoiceNumber:InvoiceNo,set=PaymentMethods.Active@1:"maybe"`
	a, b := start(t, o, faults), start(t, o, faults)
	clean := start(t, o, "")
	for _, path := range []string{"/Invoices/?page=1", "/SubscriptionCharges/?page=1", "/PaymentMethods/?page=1",
		"/v3/productplans/query?$expand=ProductPlanCharges,ProductPlanChargePricings"} {
		ra, rb, rc := a.do(t, call{path: path}), b.do(t, call{path: path}), clean.do(t, call{path: path})
		pa, pc := ra.page(t), rc.page(t)
		if !jsonEqual(pa.Items, rb.page(t).Items) {
			t.Errorf("%s: two sandboxes of one seed send it differently", path)
		}
		for i, item := range pa.Items {
			if item["ID"] != pc.Items[i]["ID"] {
				t.Fatalf("%s item %d: ID %v, clean %v", path, i, item["ID"], pc.Items[i]["ID"])
			}
			switch {
			case strings.HasPrefix(path, "/Invoices/") && (item["InvoiceNumber"] != nil || item["InvoiceNo"] == nil):
				t.Errorf("invoice %d not renamed: %v", i, item)
			case strings.HasPrefix(path, "/SubscriptionCharges/") && !jsonEqual(item, pc.Items[i]):
				t.Errorf("a subscription charge varied: %v, clean %v", item, pc.Items[i])
			case strings.HasPrefix(path, "/PaymentMethods/") && i == 0 && item["Active"] != "maybe":
				t.Errorf("set: %v", item)
			case strings.HasPrefix(path, "/v3/") && !jsonEqual(item["ProductPlanCharges"], pc.Items[i]["ProductPlanCharges"]):
				t.Errorf("product plan charges varied: %v", item)
			}
		}
	}
	keys := a.FieldKeys()
	if k := keys["invoices"]["TotalAmount"]; k.Coerced == 0 || k.Untyped == 0 {
		t.Errorf("invoices.TotalAmount: %+v; want some coerced and some untyped at these shares", k)
	}
	if k := keys["subscription_charges"]["Amount"]; k.Coerced != 0 || k.Untyped != 0 {
		t.Errorf("subscription_charges.Amount varied: %+v", k)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
