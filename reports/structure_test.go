package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
	"golang.org/x/net/html"

	"github.com/billsnap/billsnap/internal/htmlq"
	"github.com/billsnap/billsnap/ledger"
)

// nodes, attr and text read the HTML tree (htmlq).
func nodes(n *html.Node, tag string) []*html.Node { return htmlq.Elements(n, tag) }
func attr(n *html.Node, key string) string        { return htmlq.Attr(n, key) }
func text(n *html.Node) string                    { return htmlq.Text(n) }

func TestHTMLStructure(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, fixture(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, banned := range []string{"<script", "<link", "@import", "url(", "src=\"http", "href=\"http"} {
		if strings.Contains(page, banned) {
			t.Errorf("the page is not self-contained: it has %q", banned)
		}
	}
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if title := text(nodes(doc, "title")[0]); !strings.Contains(title, "MATERIAL") || !strings.Contains(title, "2026-11-22T030005Z") {
		t.Errorf("title %q", title)
	}
	tables := nodes(doc, "table")
	summary := nodes(tables[0], "tbody")[0]
	if rows := nodes(summary, "tr"); len(rows) != 16 {
		t.Errorf("summary has %d rule rows, want 16", len(rows))
	}
	if svgs := nodes(doc, "svg"); len(svgs) != 2 || len(nodes(svgs[0], "rect")) < 3 || len(nodes(svgs[1], "polyline")) != 3 {
		t.Errorf("trend charts: %d svg", len(svgs))
	}
	sections := nodes(doc, "details")
	var ids []string
	for _, s := range sections {
		ids = append(ids, attr(s, "id"))
	}
	if strings.Join(ids, " ") != "rule-charge_not_invoiced rule-price_mismatch rule-missed_billing_run rule-paid_without_payment" {
		t.Errorf("rule sections %v", ids)
	}
	first := sections[0]
	if rows := nodes(nodes(first, "tbody")[0], "tr"); len(rows) != 1 || !strings.Contains(text(first), "Showing 1 of 2 findings of this rule; findings.csv lists all of them.") {
		t.Errorf("MaxRows 1: %d rows shown, %q", len(rows), text(first))
	}
	if strings.Contains(page, "<b>product</b>") || !strings.Contains(page, "&lt;b&gt;product&lt;/b&gt;") {
		t.Error("a finding's detail is not escaped")
	}
	facts, fields := tables[len(tables)-2], tables[len(tables)-1]
	if rows := nodes(nodes(facts, "tbody")[0], "tr"); len(rows) != 3 || !strings.Contains(text(rows[2]), "–") {
		t.Errorf("snapshot facts: %d rows", len(rows))
	}
	if rows := nodes(nodes(fields, "tbody")[0], "tr"); len(rows) != 1 || !strings.Contains(text(rows[0]), "invoice_lines.UnitPrice") {
		t.Errorf("fields: %d rows", len(rows))
	}
	for _, want := range []string{"price_mismatch: 2 records not judged: field UnitPrice of invoice_lines arrived as string (1 finding held back)",
		"New fields, no typed column (kept in _raw): customers.Culture (278 records).", "Never arrived: invoices.InvoiceNumber."} {
		if !strings.Contains(text(doc), want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if !strings.Contains(text(doc), "paid in cash, booked by hand (ann@finance, until 2026-12-31)") {
		t.Error("the waiver is not shown")
	}
}

func TestXLSXReadsBack(t *testing.T) {
	var b bytes.Buffer
	if err := XLSX(&b, fixture(t)); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := "Summary charge_not_invoiced price_mismatch missed_billing_run paid_without_payment Snapshot Sign-off"
	if got := strings.Join(f.GetSheetList(), " "); got != want {
		t.Fatalf("sheets %q, want %q", got, want)
	}
	rows, _ := f.GetRows("charge_not_invoiced")
	if len(rows) != 3 || rows[0][2] != "Record ID" || rows[1][2] != "a1b2c3d4-0000-4000-8000-000000000001" {
		t.Fatalf("rule sheet rows %v", rows)
	}
	if typ, _ := f.GetCellType("charge_not_invoiced", "C2"); typ == excelize.CellTypeNumber {
		t.Error("an ID is stored as a number")
	}
	v, _ := f.GetCellValue("charge_not_invoiced", "G2", excelize.Options{RawCellValue: true})
	style, _ := f.GetCellStyle("charge_not_invoiced", "G2")
	st, _ := f.GetStyle(style)
	if typ, _ := f.GetCellType("charge_not_invoiced", "G2"); v != "249.5" || typ == excelize.CellTypeSharedString || st.CustomNumFmt == nil || !strings.Contains(*st.CustomNumFmt, `"EUR"`) {
		t.Errorf("amount cell %q, format %v", v, st.CustomNumFmt)
	}
	paid, _ := f.GetRows("paid_without_payment")
	if w := paid[1]; len(w) < 14 || w[10] != "yes" || w[11] != "paid in cash, booked by hand" || w[13] != "2026-12-31" {
		t.Errorf("waived row %q", w)
	}
	signoff, _ := f.GetRows("Sign-off")
	var labels []string
	for _, r := range signoff {
		if len(r) > 0 {
			labels = append(labels, r[0])
		}
	}
	if got := strings.Join(labels, "|"); !strings.Contains(got, "Prepared by|Reviewed by|Date|Comments") {
		t.Errorf("sign-off %q", got)
	}
	summary, _ := f.GetRows("Summary")
	if !strings.Contains(summary[0][0], "MATERIAL (exit 3)") || len(summary) < 20 {
		t.Errorf("summary %q", summary[0])
	}
	for sheet, want := range map[string]string{
		"Summary":  "price_mismatch: 2 records not judged: field UnitPrice of invoice_lines arrived as string (1 finding held back)",
		"Snapshot": "invoice_lines.UnitPrice|unit_price|money|string 85, number 2400|83|2|c3d4e5f6-0000-4000-8000-000000000003",
	} {
		rows, _ := f.GetRows(sheet)
		found := false
		for _, r := range rows {
			found = found || strings.Join(r, "|") == want
		}
		if !found {
			t.Errorf("sheet %s has no row %q", sheet, want)
		}
	}
}

// Every finding of a large reconciliation is in the workbook, on its
// rule's sheet, in order.
func TestXLSXHoldsEveryFinding(t *testing.T) {
	in := bigInput(nil, 3000)
	var b bytes.Buffer
	if err := XLSX(&b, in); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string][]string{}
	for _, fd := range in.Report.Findings {
		want[fd.Rule] = append(want[fd.Rule], fd.EntityID)
	}
	for rule, ids := range want {
		rows, err := f.GetRows(rule)
		if err != nil || len(rows) != len(ids)+1 {
			t.Fatalf("%s: %d rows for %d findings (%v)", rule, len(rows), len(ids), err)
		}
		for i, id := range ids {
			if rows[i+1][2] != id {
				t.Fatalf("%s row %d: %q, want %q", rule, i+2, rows[i+1][2], id)
			}
		}
	}
	if dim, _ := f.GetSheetDimension("price_mismatch"); dim != fmt.Sprintf("A1:V%d", len(want["price_mismatch"])+1) {
		t.Errorf("dimension %q", dim)
	}
}

// A sign-off made in the workspace is in the Sign-off sheet and the
// Markdown summary, saying whether these are the findings it signed.
func TestSignOffsAreReported(t *testing.T) {
	in := fixture(t)
	d, n := in.Report.Digest()
	at := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
	in.SignOffs = []ledger.Signed{
		{SignOff: ledger.SignOff{Snapshot: in.Report.Snapshot.ID, Name: "Dana", Role: "controller", Comment: "closed", Findings: n, Digest: d}, By: "Dana", At: at},
		{SignOff: ledger.SignOff{Snapshot: in.Report.Snapshot.ID, Name: "Eve", Role: "auditor", Findings: n, Digest: "other"}, By: "Eve", At: at},
	}
	var b bytes.Buffer
	if err := XLSX(&b, in); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := f.GetRows("Sign-off")
	var cells []string
	for _, r := range rows {
		cells = append(cells, strings.Join(r, " "))
	}
	sheet := strings.Join(cells, "\n")
	var md bytes.Buffer
	if err := Markdown(&md, in, nil); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{sheet, md.String()} {
		if !strings.Contains(doc, "Dana (controller), 2026-11-30 17:00:00 UTC") || !strings.Contains(doc, "“closed”; these findings are the ones signed") ||
			!strings.Contains(doc, "Eve (auditor)") || !strings.Contains(doc, "; the findings have changed since") {
			t.Errorf("the sign-offs are not reported:\n%s", doc)
		}
	}
}
