package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/billsnap/billsnap/findings"
)

// waivedFixture is the fixture with three more waived findings: one of
// another code in two currencies' worth, one without a code, and one of
// the fixture's code that is resolved (not counted: it is money no longer
// in question).
func waivedFixture(t *testing.T) *Input {
	in := fixture(t)
	r := in.Report
	waive := func(f findings.Finding, code string) findings.Finding {
		f.Waiver = &findings.Waiver{Rule: f.Rule, EntityID: f.EntityID, Reason: "r", ReasonCode: code, Owner: "o",
			Expires: findings.Date{Time: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}}
		return f
	}
	more := []findings.Finding{
		waive(findings.Finding{Rule: "price_mismatch", EntityID: "x1", Amount: -1000, Currency: "EUR", Status: "new"}, "timing"),
		waive(findings.Finding{Rule: "price_mismatch", EntityID: "x2", Amount: 250, Currency: "DKK", Status: "new"}, "timing"),
		waive(findings.Finding{Rule: "price_mismatch", EntityID: "x3", Amount: 700, Currency: "EUR", Status: "new"}, ""),
		waive(findings.Finding{Rule: "price_mismatch", EntityID: "x4", Amount: 900, Currency: "EUR", Status: "resolved"}, "customer_agreement"),
	}
	r.Findings = append(r.Findings[:3:3], append(more, r.Findings[3:]...)...)
	return in
}

// The reports total the waived money of the open findings by reason code:
// each code with its findings and, per currency, net and gross; the
// waivers without a code last, as (no code). The Markdown and HTML
// reports give the lines, the XLSX's Summary a row per code.
func TestWaivedMoneyIsTotalledByReasonCode(t *testing.T) {
	in := waivedFixture(t)
	var got []string
	for _, r := range in.WaivedByReason() {
		got = append(got, r.Text())
	}
	want := []string{"customer_agreement: 1 waived finding; EUR net 1234.56, gross 1234.56",
		"timing: 2 waived findings; DKK net 2.50, gross 2.50; EUR net -10.00, gross 10.00",
		"(no code): 1 waived finding; EUR net 7.00, gross 7.00"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("waived by reason:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var md, page, book bytes.Buffer
	if err := Markdown(&md, in, nil); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, in); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(md.String(), "- "+mdText(w)+"\n") || !strings.Contains(page.String(), "<li>"+w+"</li>") {
			t.Errorf("the Markdown or HTML report lacks %q", w)
		}
	}
	if err := XLSX(&book, in); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&book)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := f.GetRows(SheetSummary)
	var coded []string
	for _, r := range rows {
		if len(r) > 3 && (r[0] == "timing" || r[0] == "customer_agreement" || r[0] == NoCode) {
			coded = append(coded, strings.Join(r, "|"))
		}
	}
	if len(coded) != 3 || !strings.HasPrefix(coded[1], "timing|||2|") {
		t.Errorf("the Summary sheet's rows by reason code: %q", coded)
	}
	// Every currency waived has its column, though no unwaived finding is
	// in it (DKK here).
	for i, amounts := range [][]string{{"1,234.56"}, {"2.50", "-10.00"}, {"7.00"}} {
		for _, a := range amounts {
			if i < len(coded) && !strings.Contains(coded[i], a) {
				t.Errorf("the Summary sheet's row %q lacks %s", coded[i], a)
			}
		}
	}
}

// The findings' work is in every report that lists findings: the CSV's
// and XLSX's assignee, due, overdue and comments columns, the HTML's
// detail (the thread as text, escaped), the Markdown's table of assigned
// findings, the overdue first.
func TestTheReportsShowTheWork(t *testing.T) {
	in := fixture(t)
	in.MaxRows = 10
	var page, book bytes.Buffer
	if err := HTML(&page, in); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<td class="work">dana, due 2026-11-20 <strong class="overdue">overdue</strong></td>`, `<td class="work">erin, due 2026-12-01</td>`,
		"erin, 2026-11-22 02:00:05 UTC:</span> Asked billing ops.\nTicket OPS-42.", "=1&#43;1 &lt;b&gt;not bold&lt;/b&gt;", `<span class="code">[customer_agreement]</span>`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	if err := XLSX(&book, in); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&book)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := f.GetRows("charge_not_invoiced")
	if head := strings.Join(rows[0][16:], "|"); head != "Waiver reason code|Assignee|Due|Overdue|Comments|Resolution code" {
		t.Fatalf("the rule sheet's work columns: %q", head)
	}
	if got := strings.Join(rows[1][17:], "|"); got != "dana|2026-11-20|true|erin, 2026-11-22 02:00:05 UTC: Asked billing ops.\nTicket OPS-42.\ndana, 2026-11-22 02:59:05 UTC: =1+1 <b>not bold</b>" {
		t.Errorf("the first finding's work in the XLSX: %q", got)
	}
	rows, _ = f.GetRows("paid_without_payment")
	if rows[1][16] != "customer_agreement" {
		t.Errorf("the waived finding's reason code in the XLSX: %q", rows[1][16])
	}
	var md bytes.Buffer
	if err := Markdown(&md, in, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "2 open findings assigned, 1 overdue.") || !strings.Contains(md.String(), "| dana | 2026-11-20 | **yes** | 2 |") {
		t.Errorf("the Markdown summary's assigned findings:\n%s", md.String())
	}
}
