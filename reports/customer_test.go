package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
	"golang.org/x/net/html"

	"github.com/billsnap/billsnap/findings"
)

// Customers' names are the service's data, typed by anyone: each format
// must carry them as text.
const (
	formulaName = `=HYPERLINK("http://evil.example/","click")`
	scriptName  = `<script>alert(1)</script>`
)

// customerFixture is the reports' fixture, its first finding's customer
// named formulaName, its second's scriptName.
func customerFixture(t *testing.T) *Input {
	t.Helper()
	in := fixture(t)
	in.Report.Findings[0].CustomerName = formulaName
	in.Report.Findings[1].CustomerName = scriptName
	return in
}

// wantCustomer is what a finding's customer cells must hold: its
// customer's ID, name and invoice number.
func wantCustomer(f findings.Finding) [3]string {
	return [3]string{f.CustomerID, f.CustomerName, f.InvoiceNumber}
}

// Each finding in findings.csv names its customer (ID and name) and its
// invoice number, read as a CSV reader reads it; a name that is a formula
// is text.
func TestTheCSVNamesEachFindingsCustomer(t *testing.T) {
	in := customerFixture(t)
	var b bytes.Buffer
	if err := CSV(&b, in.Report, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, f := range in.Report.Findings {
		row := rows[i+1]
		got := [3]string{row[col["customer_id"]], row[col["customer_name"]], row[col["invoice_number"]]}
		want := wantCustomer(f)
		if f.CustomerName == formulaName {
			want[1] = "'" + formulaName
		}
		if got != want {
			t.Errorf("row %d (%s): customer %q, want %q", i+1, f.EntityID, got, want)
		}
	}
}

// Each finding in findings.json names its customer and invoice number.
func TestTheJSONNamesEachFindingsCustomer(t *testing.T) {
	in := customerFixture(t)
	var b bytes.Buffer
	if err := JSONDocument(&b, in); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Findings []FindingJSON }
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Findings) != len(in.Report.Findings) {
		t.Fatalf("%d findings, want %d", len(doc.Findings), len(in.Report.Findings))
	}
	for i, f := range in.Report.Findings {
		j := doc.Findings[i]
		if got := [3]string{j.CustomerID, j.CustomerName, j.InvoiceNumber}; got != wantCustomer(f) {
			t.Errorf("finding %s: customer %q, want %q", f.EntityID, got, wantCustomer(f))
		}
	}
}

// Each finding's row of its rule sheet names its customer and invoice
// number, as text; a customer not known is "—".
func TestTheXLSXNamesEachFindingsCustomer(t *testing.T) {
	in := customerFixture(t)
	var b bytes.Buffer
	if err := XLSX(&b, in); err != nil {
		t.Fatal(err)
	}
	book, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	for _, f := range in.Report.Findings {
		rows, err := book.GetRows(f.Rule)
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		found := false
		for r, row := range rows[1:] {
			if row[col["Record ID"]] != f.EntityID {
				continue
			}
			found = true
			cell := func(h string) string {
				if col[h] < len(row) {
					return row[col[h]]
				}
				return ""
			}
			want := wantCustomer(f)
			for i, v := range want[:2] {
				if v == "" {
					want[i] = findings.NoCustomer
				}
			}
			if got := [3]string{cell("Customer ID"), cell("Customer"), cell("Invoice")}; got != want {
				t.Errorf("%s, %s: customer %q, want %q", f.Rule, f.EntityID, got, want)
			}
			name, _ := excelize.CoordinatesToCellName(col["Customer"]+1, r+2)
			if formula, _ := book.GetCellFormula(f.Rule, name); formula != "" {
				t.Errorf("%s %s holds the formula %q", f.Rule, name, formula)
			}
		}
		if !found {
			t.Errorf("%s: no row of %s", f.Rule, f.EntityID)
		}
	}
}

// Each finding's row of report.html names its customer (name and ID) and
// invoice number, as text: a name that is markup is not.
func TestTheHTMLNamesEachFindingsCustomer(t *testing.T) {
	in := customerFixture(t)
	in.MaxRows = 100 // every finding shown
	var b bytes.Buffer
	if err := HTML(&b, in); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), scriptName) {
		t.Error("a customer's name is markup in the report")
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // a finding's cells, by record ID
	for _, tr := range nodes(doc, "tr") {
		var cells []string
		for _, td := range nodes(tr, "td") {
			cells = append(cells, strings.TrimSpace(text(td)))
		}
		if len(cells) > 4 {
			rows[strings.ReplaceAll(cells[2], "\u200b", "")] = cells
		}
	}
	for _, f := range in.Report.Findings {
		cells, ok := rows[f.EntityID]
		if !ok {
			t.Errorf("no row of %s", f.EntityID)
			continue
		}
		if cells[3] != f.Customer() || cells[4] != f.InvoiceNumber {
			t.Errorf("%s: customer %q, invoice %q; want %q, %q", f.EntityID, cells[3], cells[4], f.Customer(), f.InvoiceNumber)
		}
	}
}
