package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/configkey"
)

func TestApplyFieldsMapsAndAdds(t *testing.T) {
	t.Parallel()
	tables, err := ApplyFields(Mapping{
		"invoices":      {"invoice_number": {Field: "InvoiceNo"}, "po_number": {Field: "PurchaseOrder", Type: "string"}},
		"invoice_lines": {"discount": {Field: "Discount", Type: "money"}, "amount": {Field: "LineAmount", Type: "money"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	inv := tableIn(tables, "invoices")
	if c := inv.Columns[indexOfColumn(inv, "invoice_number")]; c.Field != "InvoiceNo" || c.Kind != String {
		t.Errorf("invoice_number: %+v", c)
	}
	if c := inv.Columns[len(inv.Columns)-1]; c.Name != "po_number" || c.Field != "PurchaseOrder" || c.Kind != String || c.Contract ||
		!strings.Contains(c.Description, "PurchaseOrder") || c.Codes != nil {
		t.Errorf("added column: %+v", c)
	}
	lines := tableIn(tables, "invoice_lines")
	if c := lines.Columns[indexOfColumn(lines, "amount")]; c.Field != "LineAmount" || c.Kind != Money {
		t.Errorf("amount: %+v", c)
	}
	if got := lines.ColumnNames(); got[len(got)-2] != "discount" || got[len(got)-1] != "_raw" {
		t.Errorf("added columns go before _raw: %v", got)
	}
	if base, _ := TableNamed("invoices"); base.Columns[0].Field != "InvoiceNumber" || len(base.Columns) != 8 {
		t.Errorf("ApplyFields changed the catalogue itself: %+v", base.Columns[0])
	}
}

// Each mistake is a config error naming its key and saying why.
func TestApplyFieldsRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fields    Mapping
		key, want string
	}{
		{Mapping{"invoice": {"x": {Field: "X", Type: "string"}}}, "fields.invoice", "unknown table; known: customers,"},
		{Mapping{"subscription_charges": {"amount": {Field: "Quantity"}}}, "fields.subscription_charges.amount", "Amount is a field the spec defines"},
		{Mapping{"invoices": {"total_amount": {Field: "Total", Type: "string"}}}, "fields.invoices.total_amount", `the column is a money column; type "string"`},
		{Mapping{"invoices": {"po_number": {Field: "PurchaseOrder"}}}, "fields.invoices.po_number", "a new column needs a type"},
		{Mapping{"invoices": {"po_number": {Field: "PurchaseOrder", Type: "text"}}}, "fields.invoices.po_number", `unknown type "text"`},
		{Mapping{"invoices": {"PO": {Field: "PurchaseOrder", Type: "string"}}}, "fields.invoices.PO", "a new column's name must be snake_case"},
		{Mapping{"invoice_lines": {"invoice_id": {Field: "Inv", Type: "string"}}}, "fields.invoice_lines.invoice_id", "invoice_id is a column of every row"},
		{Mapping{"transactions": {"status_label": {Field: "StatusText", Type: "string"}}}, "fields.transactions.status_label", "status_label is the label beside a coded column"},
		{Mapping{"invoices": {"lines": {Field: "InvoiceLines", Type: "string"}}}, "fields.invoices.lines", "InvoiceLines is a nested list"},
		{Mapping{"invoices": {"other_id": {Field: "ID", Type: "string"}}}, "fields.invoices.other_id", "ID is the record's identifier"},
		{Mapping{"invoices": {"invoice_number": {Field: " "}}}, "fields.invoices.invoice_number", "needs a field"},
		{Mapping{"invoices": {"number": {Field: "InvoiceNumber", Type: "string"}}}, "fields.invoices.number", "field InvoiceNumber is read by column invoice_number already"},
	} {
		_, err := ApplyFields(tc.fields)
		var ce *configkey.Error
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), "config key "+tc.key+": "+tc.want) {
			t.Errorf("%v: error %v; want key %s: %q", tc.fields, err, tc.key, tc.want)
		}
	}
}

func tableIn(tables []Table, name string) Table {
	for _, t := range tables {
		if t.Name == name {
			return t
		}
	}
	panic("no table " + name)
}

func indexOfColumn(t Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	panic("no column " + name)
}
