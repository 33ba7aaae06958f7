package workspace

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/htmlq"
	"github.com/billsnap/billsnap/reports"
)

// Every finding of the fixture's reconciliation names its customer (ID
// and name; the ID alone when the customer is not in the snapshot) and, for an invoice, a line or a payment of one, the
// invoice's number: in the API's JSON, the findings list and the CSV
// download, as their readers read them. The names are the sandbox's.
func TestEachFindingNamesItsCustomer(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	var found []reports.FindingJSON
	getJSON(t, srv, "/api/findings", &found)
	if len(found) == 0 {
		t.Fatal("no findings")
	}
	invoiced := map[string]bool{"invoice": true, "invoice_line": true}
	for _, f := range found {
		if f.Rule == findings.IncompleteRule {
			continue
		}
		// A record naming a customer the snapshot does not hold (an orphan)
		// shows the ID alone.
		orphan := f.Rule == "orphan_reference" && f.CustomerID != "" && f.CustomerName == ""
		if !orphan && (f.CustomerID == "" || !strings.HasPrefix(f.CustomerName, "Customer ") && f.CustomerName != evilName) {
			t.Errorf("API: %s %s %s: customer %q %q", f.Rule, f.Entity, f.EntityID, f.CustomerID, f.CustomerName)
		}
		if invoiced[f.Entity] && f.InvoiceNumber == "" {
			t.Errorf("API: %s %s %s: no invoice number", f.Rule, f.Entity, f.EntityID)
		}
	}

	a := do(t, srv, call{path: "/findings.csv"})
	rows, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if a.status != http.StatusOK || err != nil || len(rows) != len(found)+1 {
		t.Fatalf("CSV: %d, %d rows (%v), want %d", a.status, len(rows), err, len(found)+1)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	byID := map[string]reports.FindingJSON{}
	for _, f := range found {
		byID[f.Rule+" "+f.EntityID] = f
	}
	for _, row := range rows[1:] {
		f := byID[row[col["rule"]]+" "+row[col["entity_id"]]]
		if row[col["customer_id"]] != f.CustomerID || row[col["customer_name"]] != f.CustomerName || row[col["invoice_number"]] != f.InvoiceNumber {
			t.Errorf("CSV: %s %s: customer %q %q, invoice %q; the API's %q %q %q", row[col["rule"]], row[col["entity_id"]],
				row[col["customer_id"]], row[col["customer_name"]], row[col["invoice_number"]], f.CustomerID, f.CustomerName, f.InvoiceNumber)
		}
	}

	a = do(t, srv, call{path: "/findings?page=1"})
	doc, err := html.Parse(strings.NewReader(a.body))
	if a.status != http.StatusOK || err != nil {
		t.Fatalf("GET /findings: %d %v", a.status, err)
	}
	shown := 0
	for _, span := range htmlq.Elements(doc, "span") {
		if htmlq.HasClass(span, "customer") {
			shown++
			name := strings.TrimPrefix(htmlq.Text(span), "customer ")
			if name == findings.NoCustomer || name == "" {
				t.Errorf("list: a finding's customer %q", name)
			}
		}
	}
	if want := min(len(found), 25); shown != want {
		t.Errorf("list: %d rows name their customer, want %d", shown, want)
	}

	// The overview counts the open findings whose customer's name is not
	// known (the fixture's orphans).
	nameless := 0
	for _, f := range found {
		if f.Status != "resolved" && f.Rule != findings.IncompleteRule && f.CustomerName == "" {
			nameless++
		}
	}
	a = do(t, srv, call{path: "/"})
	doc, err = html.Parse(strings.NewReader(a.body))
	if a.status != http.StatusOK || err != nil {
		t.Fatalf("GET /: %d %v", a.status, err)
	}
	var said string
	for _, p := range htmlq.Elements(doc, "p") {
		if htmlq.Attr(p, "id") == "customers" {
			said = htmlq.Text(p)
		}
	}
	if want := fmt.Sprintf("%d open finding", nameless); nameless == 0 || !strings.HasPrefix(said, want) {
		t.Errorf("overview: %q, want it to begin %q", said, want)
	}

	// The record page's findings name the customer too.
	for _, f := range found {
		if f.CustomerName == "" || f.InvoiceNumber == "" {
			continue
		}
		a := do(t, srv, call{path: "/entities/" + url.PathEscape(f.Entity) + "/" + url.PathEscape(f.EntityID)})
		doc, err := html.Parse(strings.NewReader(a.body))
		if a.status != http.StatusOK || err != nil {
			t.Fatalf("record %s: %d %v", f.EntityID, a.status, err)
		}
		want := f.CustomerName + " (" + f.CustomerID + ")"
		var cells []string
		for _, td := range htmlq.Elements(doc, "td") {
			if htmlq.HasClass(td, "customer") {
				cells = append(cells, htmlq.Text(td))
			}
		}
		if len(cells) == 0 || cells[0] != want {
			t.Errorf("record %s: customer cells %q, want %q", f.EntityID, cells, want)
		}
		break
	}
}
