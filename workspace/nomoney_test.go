package workspace

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/reports"
)

// lineOf is the first line of text that holds every one of parts, "" when
// none does.
func lineOf(text string, parts ...string) string {
	for l := range strings.SplitSeq(text, "\n") {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(l, p) }) {
			return l
		}
	}
	return ""
}

// A finding with no money (its rule names a record, not a sum) reads "—"
// in every output for people, as in the workspace: the terminal's text, the
// Markdown summary, the HTML report (its row and its rule's summary) and
// the XLSX (its row on its rule's sheet and the rule's line of the
// Summary), never "USD 0.00"; the machine formats keep the amount as
// they have it, 0.00 in CSV and JSON.
func TestAFindingWithoutMoneyReadsADashEverywhere(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	in := fx.report(t)
	var none findings.Finding
	for _, f := range in.Report.Open() {
		if f.Amount == 0 && f.Waiver == nil && f.Currency != "" && (f.Rule == "multiple_active_charges" || f.Rule == "currency_mismatch") {
			none = f
			break
		}
	}
	if none.EntityID == "" {
		t.Fatal("the fixture has no open finding without money in a currency")
	}
	zero := none.Currency + " 0.00"
	var text, md, page, table bytes.Buffer
	if err := reports.Text(&text, in.Report); err != nil {
		t.Fatal(err)
	}
	if l := lineOf(text.String(), none.Rule+" "); strings.Contains(l, zero) || !strings.Contains(l, none.Currency+" —") {
		t.Errorf("the text's line of %s: %q; want %s —", none.Rule, l, none.Currency)
	}
	if err := reports.Markdown(&md, in, nil); err != nil {
		t.Fatal(err)
	}
	if l := lineOf(md.String(), "| "+none.Rule+" |"); strings.Contains(l, zero) || !strings.Contains(l, none.Currency+" —") {
		t.Errorf("the Markdown's line of %s: %q; want %s —", none.Rule, l, none.Currency)
	}
	if strings.Contains(text.String()+md.String(), zero) && onlyWithoutMoney(in.Report, none.Currency) {
		t.Errorf("the text or the Markdown totals %s, whose findings carry no money:\n%s\n%s", zero, text.String(), md.String())
	}
	if err := reports.HTML(&page, in); err != nil {
		t.Fatal(err)
	}
	id := strings.Split(none.EntityID, "/")[0]
	if row := lineOf(strings.ReplaceAll(page.String(), "\n      <td", "<td"), id, "<td class=\"num\">"); !strings.Contains(row, `<td class="num">—</td>`) {
		t.Errorf("the HTML row of %s: %s", none.EntityID, row)
	}
	if err := reports.XLSX(&table, in); err != nil {
		t.Fatal(err)
	}
	book, err := excelize.OpenReader(&table)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := book.GetRows(none.Rule)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		if len(r) > 7 && r[2] == none.EntityID {
			found = true
			if r[6] != "—" {
				t.Errorf("the XLSX row of %s: amount %q, want —", none.EntityID, r[6])
			}
		}
	}
	summary, err := book.GetRows("Summary")
	if err != nil || !found {
		t.Fatalf("the XLSX: its Summary %v, the row of %s found %v", err, none.EntityID, found)
	}
	col := -1
	for _, r := range summary {
		for i, c := range r {
			if c == "Unwaived "+none.Currency {
				col = i
			}
		}
		if len(r) > 0 && r[0] == none.Rule && col >= 0 && (len(r) <= col || r[col] != "—") {
			t.Errorf("the XLSX Summary's line of %s: %q, want — under Unwaived %s", none.Rule, r, none.Currency)
		}
	}

	var raw bytes.Buffer
	if err := reports.CSV(&raw, in.Report, nil); err != nil {
		t.Fatal(err)
	}
	recs, _ := csv.NewReader(&raw).ReadAll()
	for _, r := range recs {
		if r[0] == none.Rule && r[3] == none.EntityID && r[4] != "0.00" {
			t.Errorf("the CSV's amount of %s: %q, want 0.00 as ever", none.EntityID, r[4])
		}
	}
	raw.Reset()
	if err := reports.JSONLines(&raw, in.Report); err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(strings.TrimSpace(raw.String()), "\n") {
		var f reports.FindingJSON
		if json.Unmarshal([]byte(l), &f) == nil && f.Rule == none.Rule && f.EntityID == none.EntityID && f.Amount != "0.00" {
			t.Errorf("the JSON's amount of %s: %q, want 0.00 as ever", none.EntityID, f.Amount)
		}
	}
}

// onlyWithoutMoney tells whether every open, unwaived finding in cur
// carries no money.
func onlyWithoutMoney(r *findings.Report, cur string) bool {
	for _, f := range r.Findings {
		if f.IsOpen() && f.Currency == cur && f.Amount != 0 {
			return false
		}
	}
	return true
}
