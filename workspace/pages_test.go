package workspace

import (
	"context"
	"encoding/csv"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/workspace/record"
)

var (
	countRE  = regexp.MustCompile(`<p class="meta" id="count">(\d+) findings?\b`)
	amountRE = regexp.MustCompile(`<td class="num">(-?[\d,]+\.\d\d)</td>`)
	rowRE    = regexp.MustCompile(`<tr class="(new|recurring|resolved)`)
)

// listed is what a findings page says: how many the filter keeps, and the
// rows and amounts shown.
func listed(t *testing.T, body string) (total, rows int, amounts []money.Amount) {
	t.Helper()
	m := countRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no count on the page:\n%s", body)
	}
	total, _ = strconv.Atoi(m[1])
	for _, a := range amountRE.FindAllStringSubmatch(body, -1) {
		v, err := money.Parse(strings.ReplaceAll(a[1], ",", ""))
		if err != nil {
			t.Fatal(err)
		}
		amounts = append(amounts, v)
	}
	return total, len(rowRE.FindAllString(body, -1)), amounts
}

// The list filters, sorts and pages on the server, and the downloads hold
// every finding of the filter with the reports' columns.
func TestTheFindingsList(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	rep := fx.reconciled
	count := func(keep func(findings.Finding) bool) int {
		n := 0
		for _, f := range rep.Findings {
			if keep(f) {
				n++
			}
		}
		return n
	}
	get := func(q string) string {
		t.Helper()
		a := do(t, srv, call{path: "/findings?" + q})
		if a.status != http.StatusOK {
			t.Fatalf("/findings?%s: %d %s", q, a.status, a.body)
		}
		return a.body
	}
	total, rows, _ := listed(t, get(""))
	if total != len(rep.Findings) || rows != min(25, total) || total <= 25 {
		t.Fatalf("unfiltered: %d findings, %d rows; the report has %d", total, rows, len(rep.Findings))
	}
	_, rows2, _ := listed(t, get("page=2"))
	if rows2 != min(25, total-25) {
		t.Errorf("page 2: %d rows of %d", rows2, total)
	}
	for q, keep := range map[string]func(findings.Finding) bool{
		"rule=paid_without_payment": func(f findings.Finding) bool { return f.Rule == "paid_without_payment" },
		"severity=critical":         func(f findings.Finding) bool { return f.Severity == "critical" },
		"status=open":               func(f findings.Finding) bool { return f.Status != findings.StatusResolved },
		"currency=EUR":              func(f findings.Finding) bool { return f.Currency == "EUR" },
		"waived=no":                 func(f findings.Finding) bool { return f.Waiver == nil },
		"q=" + url.QueryEscape(strings.ToUpper(rep.Findings[3].EntityID[:8])): func(f findings.Finding) bool {
			return strings.Contains(strings.ToLower(f.EntityID), strings.ToLower(rep.Findings[3].EntityID[:8])) ||
				strings.Contains(strings.ToLower(f.Detail), strings.ToLower(rep.Findings[3].EntityID[:8]))
		},
	} {
		want := count(keep)
		if got, _, _ := listed(t, get(q)); got != want || want == 0 {
			t.Errorf("%s: %d findings, want %d", q, got, want)
		}
	}
	_, _, amounts := listed(t, get("sort=amount&dir=desc"))
	var most money.Amount
	for _, f := range rep.Findings {
		most = max(most, f.Amount)
	}
	if len(amounts) == 0 || amounts[0] != most {
		t.Errorf("sorted by amount, descending: first %v, the largest is %v", amounts, most)
	}
	if a := do(t, srv, call{path: "/findings?sort=nope"}); a.status != http.StatusBadRequest {
		t.Errorf("an unknown sort: %d", a.status)
	}
	checkWaiveLink(t, get("rule=paid_without_payment&status=open&page=1"))
	checkDownloads(t, srv, count(func(f findings.Finding) bool { return f.Rule == "paid_without_payment" }))
}

var waiveLinkRE = regexp.MustCompile(`<a class="button" href="(/waive\?[^"]+)">Waive</a>`)

// checkWaiveLink checks that a finding's Waive link names the finding and
// comes back to the list as it was filtered.
func checkWaiveLink(t *testing.T, page string) {
	t.Helper()
	m := waiveLinkRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Waive link on the list")
	}
	u, err := url.Parse(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("rule") != "paid_without_payment" || q.Get("entity_id") == "" || q.Get("back") != "/findings?rule=paid_without_payment&status=open" {
		t.Errorf("the Waive link %s", u)
	}
}

// checkDownloads downloads the findings of one rule as CSV and XLSX: want
// rows each, under the reports' headers.
func checkDownloads(t *testing.T, srv *httptest.Server, want int) {
	t.Helper()
	a := do(t, srv, call{path: "/findings.csv?rule=paid_without_payment&page=2"})
	rows, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if a.status != http.StatusOK || err != nil || len(rows) != want+1 || rows[0][0] != "rule" || rows[0][15] != "waiver_by" {
		t.Fatalf("CSV: %d, %d rows (%v), want %d", a.status, len(rows), err, want+1)
	}
	a = do(t, srv, call{path: "/findings.xlsx?rule=paid_without_payment"})
	book, err := excelize.OpenReader(strings.NewReader(a.body))
	if a.status != http.StatusOK || err != nil {
		t.Fatalf("XLSX: %d %v", a.status, err)
	}
	sheet, err := book.GetRows("paid_without_payment")
	if err != nil || len(sheet) < want+1 {
		t.Fatalf("XLSX sheet paid_without_payment: %d rows, %v; want %d findings", len(sheet), err, want)
	}
}

// unpaidInvoice is an invoice of the latest snapshot with no PaymentDate.
func unpaidInvoice(t *testing.T, fx *fixture) string {
	t.Helper()
	db, err := snapshot.OpenRead(context.Background(), fx.cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id string
	if err := db.QueryRow("SELECT id FROM latest_invoices WHERE payment_date IS NULL ORDER BY id LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// section is the part of a page from the heading title to the next
// section.
func section(page, title string) string {
	_, after, _ := strings.Cut(page, "<h2>"+title+"</h2>")
	before, _, _ := strings.Cut(after, "</section>")
	return before
}

func hasLink(ls []record.Link, kind, id string) bool {
	for _, l := range ls {
		if l.Kind == kind && (id == "" || l.ID == id) {
			return true
		}
	}
	return false
}
