package workspace

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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

// A sign-off records the reconciliation's digest and totals, shows on the
// overview, and the overview says so when the findings change after it.
func TestASignOffAndAChangeAfterIt(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	rep := fx.reconciled
	a := do(t, srv, call{method: http.MethodPost, path: "/api/signoffs", contentType: "application/json",
		body: `{"name":"Dana Controller","role":"controller","comment":"November closed"}`})
	if a.status != http.StatusCreated {
		t.Fatalf("POST /api/signoffs: %d %s", a.status, a.body)
	}
	var so struct {
		Digest   string
		Findings int
		Snapshot string `json:"snapshot_id"`
		Totals   map[string]struct{ Net, Gross string }
	}
	json.Unmarshal([]byte(a.body), &so)
	d, _ := rep.Digest()
	n := rep.OpenCount()
	totals := rep.CurrencyTotals()
	if so.Digest != d || so.Findings != n || so.Snapshot != rep.Snapshot.ID || len(so.Totals) != len(totals) {
		t.Fatalf("the sign-off %+v; the reconciliation's digest %s of %d findings, totals %v", so, d, n, totals)
	}
	for c, tot := range totals {
		if so.Totals[c].Net != tot.Net.String() || so.Totals[c].Gross != tot.Gross.String() {
			t.Errorf("%s: signed %+v, reconciled %+v", c, so.Totals[c], tot)
		}
	}
	if lines := fx.report(t).SignOffLines(); len(lines) != 1 || !lines[0].Matches || lines[0].Name != "Dana Controller" {
		t.Fatalf("the report's sign-offs: %+v", lines)
	}
	page := do(t, srv, call{path: "/"}).body
	if !strings.Contains(page, "Signed off by <strong>Dana Controller</strong>") || strings.Contains(page, "changed since this sign-off") {
		t.Fatalf("the overview after the sign-off:\n%s", section(page, "Sign-off"))
	}
	var target findings.Finding
	for _, f := range rep.Open() {
		if f.Waiver == nil {
			target = f
			break
		}
	}
	w, _ := json.Marshal(map[string]string{"rule": target.Rule, "entity_id": target.EntityID, "reason": "r", "owner": "o", "expires": "2099-01-01"})
	do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: string(w), contentType: "application/json"})
	fx.reconcile(t)
	if page := do(t, srv, call{path: "/"}).body; !strings.Contains(page, "The findings have changed since this sign-off.") {
		t.Fatalf("the overview after a waiver changed the findings says nothing:\n%s", section(page, "Sign-off"))
	}
	if lines := fx.report(t).SignOffLines(); len(lines) != 1 || lines[0].Matches {
		t.Fatalf("the report after the change: %+v", lines)
	}
	var all []json.RawMessage
	getJSON(t, srv, "/api/signoffs", &all)
	if len(all) != 1 || !bytes.Contains(all[0], []byte(d)) {
		t.Fatalf("sign-offs after the change: %s", all)
	}
}

// A record opens by ID with its typed columns and raw JSON, its links both
// ways, its findings over history, and a diff between two snapshots that
// shows what changed.
func TestDrillDown(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	rep := fx.reconciled
	var inv findings.Finding
	for _, f := range rep.Open() {
		if f.Entity == "invoice" && f.Rule == "paid_without_payment" {
			inv = f
			break
		}
	}
	if inv.EntityID == "" {
		t.Fatal("no invoice finding")
	}
	var v record.View
	getJSON(t, srv, "/api/entities/invoice/"+inv.EntityID, &v)
	if v.Table != "invoices" || len(v.Raw) == 0 || !hasLink(v.Parents, "customer", "") || !hasLink(v.Children, "invoice_line", "") ||
		len(v.Findings) == 0 || v.Findings[0].Rule == "" {
		t.Fatalf("the invoice: %+v", v)
	}
	var customer string
	for _, l := range v.Parents {
		if l.Kind == "customer" {
			customer = l.ID
		}
	}
	var c record.View
	getJSON(t, srv, "/api/entities/customers/"+customer, &c)
	if !hasLink(c.Children, "invoice", inv.EntityID) {
		t.Fatalf("the customer %s does not lead back to invoice %s: %+v", customer, inv.EntityID, c.Children)
	}
	first := rep.Snapshot.ID
	var paid json.RawMessage
	target := unpaidInvoice(t, fx)
	sandboxCall(t, fx.sb, http.MethodPut, "/v3/invoices/"+target+"/markpaid/", map[string]string{"PaymentDate": time.Now().UTC().Format(time.RFC3339)}, http.StatusOK, &paid)
	fx.export(t)
	fx.reconcile(t)
	checkTwoToCompare(t, fx, srv)
	var snaps []apiSnapshot
	getJSON(t, srv, "/api/snapshots", &snaps)
	second := snaps[0].ID
	if len(snaps) != 2 || snaps[1].ID != first || len(snaps[1].Reconciliations) != 1 {
		t.Fatalf("snapshots %+v", snaps)
	}
	if n, _, _ := listed(t, do(t, srv, call{path: "/findings?snapshot=" + first}).body); n != len(rep.Findings) {
		t.Errorf("the list of the first snapshot: %d findings, its reconciliation %d", n, len(rep.Findings))
	}
	getJSON(t, srv, "/api/entities/invoice/"+target+"?a="+first+"&b="+second, &v)
	changed := map[string]bool{}
	for _, r := range v.Diff.Rows {
		if r.Changed {
			changed[r.Name] = true
		}
	}
	if len(v.In) != 2 || !changed["PaymentDate"] || len(changed) != 1 {
		t.Fatalf("the diff of invoice %s between %s and %s: %v (in %v)", target, first, second, changed, v.In)
	}
	page := do(t, srv, call{path: "/entities/invoice/" + target + "?a=" + first + "&b=" + second}).body
	if !strings.Contains(page, `<tr class="changed"><th>PaymentDate</th>`) {
		t.Fatalf("the record's page shows no changed PaymentDate:\n%s", page)
	}
	if a := do(t, srv, call{path: "/api/entities/invoice/nope"}); a.status != http.StatusNotFound {
		t.Errorf("no such invoice: %d", a.status)
	}
	if a := do(t, srv, call{path: "/api/entities/spaceship/x"}); a.status != http.StatusNotFound {
		t.Errorf("no such kind: %d", a.status)
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

// While an export runs and publishes, every page and API read answers; a
// snapshot published but not yet reconciled leaves the pages on the newest
// reconciled one, saying so, while the API's latest names it.
func TestTheWorkspaceAnswersDuringAnExport(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	done := make(chan struct{})
	go func() {
		defer close(done)
		fx.export(t)
	}()
	answered := 0
	for running := true; running; answered++ {
		select {
		case <-done:
			running = false
		default:
		}
		for _, p := range []string{"/", "/findings", "/api/findings?snapshot=" + fx.first(t)} {
			if a := do(t, srv, call{path: p}); a.status != http.StatusOK {
				t.Fatalf("GET %s during the export: %d %s", p, a.status, a.body)
			}
		}
	}
	page := do(t, srv, call{path: "/"}).body
	if !strings.Contains(page, `id="note">The latest snapshot, `) || !strings.Contains(page, "Snapshot "+fx.first(t)) {
		t.Fatalf("the overview after an export not yet reconciled (first %s):\n%s", fx.first(t), section(page, "Totals"))
	}
	if a := do(t, srv, call{path: "/api/findings?snapshot=latest"}); a.status != http.StatusNotFound || !strings.Contains(a.body, "has not been reconciled") {
		t.Fatalf("the API's latest before the reconcile: %d %s", a.status, a.body)
	}
	t.Logf("%d rounds of reads during the export", answered)
}
