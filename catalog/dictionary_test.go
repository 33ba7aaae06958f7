package catalog

import (
	"os"
	"strings"
	"testing"
)

// Every column of every table, and one the fields key adds, is described
// and typed; only billsnap's own columns (a child's parent ID, a
// pricing's key, _raw) have no field of the service.
func TestEveryColumnIsDescribed(t *testing.T) {
	t.Parallel()
	tables, err := ApplyFields(Mapping{"customers": {"culture": {Field: "Culture", Type: "string"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		docs := tb.Docs()
		if got, want := len(docs), len(tb.ColumnNames()); got != want {
			t.Errorf("%s: %d columns described, %d columns", tb.Name, got, want)
		}
		for i, d := range docs {
			own := d.Name == "_raw" || d.Name == tb.ParentColumn || tb.Name == "product_plan_charge_pricings" && d.Name == "id"
			switch {
			case d.Name != tb.ColumnNames()[i]:
				t.Errorf("%s: column %d is %s, described as %s", tb.Name, i, tb.ColumnNames()[i], d.Name)
			case len(d.Description) < 10 || d.Type == "":
				t.Errorf("%s.%s: not described: %+v", tb.Name, d.Name, d)
			case own != (d.Field == ""):
				t.Errorf("%s.%s: field %q", tb.Name, d.Name, d.Field)
			}
		}
	}
	cust, _ := Find(tables, "customers")
	if d := cust.Docs()[len(cust.Docs())-2]; d.Name != "culture" || d.Field != "Culture" || !strings.Contains(d.Description, "fields key") {
		t.Errorf("an added column: %+v", d)
	}
}

// The ids that are not the service's say what they are instead.
func TestTheIDsBillsnapMakesAreDescribedSo(t *testing.T) {
	t.Parallel()
	for table, want := range map[string]string{
		"product_plan_charge_pricings": "the product plan charge pricing's key, made by billsnap: its ProductPlanChargeID and CurrencyCode joined by /",
		"invoice_lines":                "the invoice line's ID in the service (a GUID); <parent id>/<position> for one sent without an ID",
		"product_plan_charges":         "the product plan charge's ID in the service (a GUID)",
		"units_of_measure":             "the unit of measure's ID in the service (a GUID)",
	} {
		tb, _ := TableNamed(table)
		if d := tb.Docs()[0]; !strings.HasPrefix(d.Description, want) {
			t.Errorf("%s.id: %q; want it to start %q", table, d.Description, want)
		}
	}
	lines, _ := TableNamed("invoice_lines")
	if d := lines.Docs()[1]; d.Description != "the invoice whose InvoiceLines held the invoice line (invoices.id)" {
		t.Errorf("invoice_lines.invoice_id: %q", d.Description)
	}
}

// Every kind has a DuckDB type, as information_schema spells it.
func TestEveryKindHasATypeName(t *testing.T) {
	t.Parallel()
	for k := range kindNames {
		if Kind(k).TypeName() == "" {
			t.Errorf("kind %s has no DuckDB type name", Kind(k))
		}
	}
	if got := Timestamp.TypeName(); got != "TIMESTAMP WITH TIME ZONE" {
		t.Errorf("timestamp: %q", got)
	}
}

// docs/fields.md lists the codes as the catalogue has them, and the
// coded columns the issue names are coded.
func TestFieldsDocListsTheCodes(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/fields.md")
	if err != nil {
		t.Fatal(err)
	}
	want := CodesDoc(Tables())
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/fields.md does not list the codes as the catalogue has them; want:\n%s", want)
	}
	for _, c := range []string{"subscription_charges | status (Status) | `1`", "subscription_charges | status (Status) | `7`",
		"subscription_charges | state_code (StateCode) | `1`", "subscriptions | state (State) | `Paused`",
		"transactions | type (Type) | `Refund`", "transactions | status (Status) | `Pending`"} {
		if !strings.Contains(want, c) {
			t.Errorf("no code %q", c)
		}
	}
}
