//go:build heavy

package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/testtools"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot"
)

// browser is a headless Chromium tab that notes every console error,
// exception, error log entry and request that leaves the workspace.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	exe := testtools.Require(t, "chromium", "chromium", "chromium-browser", "google-chrome")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900), chromedp.Flag("disable-quic", true))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc(); cancel() })
	b := &browser{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				b.note("console %s: %v", e.Type, e.Args)
			}
		case *runtime.EventExceptionThrown:
			b.note("exception: %s", e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			// The page before the login is 401, as every request
			// without the token is.
			if e.Entry.Level == log.EntryLevelError && !strings.Contains(e.Entry.Text, "status of 401") {
				b.note("log error: %s %s", e.Entry.Text, e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if !strings.HasPrefix(e.Request.URL, base) && !strings.HasPrefix(e.Request.URL, "data:") {
				b.note("request that leaves the workspace: %s", e.Request.URL)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *browser) note(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

// do runs steps, failing the test with what went wrong.
func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func (b *browser) eval(t *testing.T, expr string) string {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// shot keeps a screenshot of the page as name, in BILLSNAP_SCREENSHOT_DIR
// when set (docs/screenshots takes them from there).
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := os.Getenv("BILLSNAP_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) check(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Error(p)
	}
}

// The workspace in a real headless Chromium, logged in with the token:
// the overview shows every rule that has findings, with no console error
// and no request outside the workspace; the list filters; a record opens
// from the list; a finding is waived through the form and the period is
// signed off, both recorded in the ledger.
func TestWorkspaceInChromium(t *testing.T) {
	fx := newFixture(t)
	const token = "chromium-token-3f9a0c"
	srv := fx.serve(t, token)
	rep := fx.reconcile(t)
	b := newBrowser(t, srv.URL)

	b.do(t, "the login", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)))
	b.shot(t, "workspace-login.png")
	b.do(t, "logging in", chromedp.SendKeys(chromedp.CSS(`input[name=token]`), token),
		chromedp.Submit(chromedp.CSS(`input[name=token]`)), chromedp.WaitVisible(chromedp.ID("verdict")))
	for _, tot := range rep.Totals() {
		n := b.eval(t, fmt.Sprintf(`String(document.querySelectorAll('tr.rule-row[data-rule="%s"]').length)`, tot.Rule.ID))
		if (tot.Count > 0 || tot.Resolved > 0) != (n != "0") {
			t.Errorf("rule %s: %d findings, %s rows on the overview", tot.Rule.ID, tot.Count, n)
		}
	}
	if v := b.eval(t, `document.getElementById("verdict").textContent`); v != "MATERIAL" {
		t.Errorf("verdict %q", v)
	}
	b.shot(t, "workspace-overview.png")

	want := 0
	for _, f := range rep.Findings {
		if f.Rule == "paid_without_payment" {
			want++
		}
	}
	b.do(t, "filtering", chromedp.Navigate(srv.URL+"/findings"), chromedp.WaitVisible(chromedp.ID("filters")),
		chromedp.SetValue(chromedp.CSS(`select[name=rule]`), "paid_without_payment"),
		chromedp.Click(chromedp.CSS(`#filters button`)), chromedp.WaitReady(chromedp.CSS(`select[name=rule] option[selected][value=paid_without_payment]`)))
	if got := b.eval(t, `document.getElementById("count").textContent`); !strings.HasPrefix(got, fmt.Sprintf("%d findings", want)) {
		t.Errorf("filtered to paid_without_payment: %q, want %d findings", got, want)
	}
	b.shot(t, "workspace-findings.png")

	b.do(t, "waiving", chromedp.Click(chromedp.CSS(`#findings a.button`)), chromedp.WaitVisible(chromedp.ID("waive-form")),
		chromedp.SetValue(chromedp.CSS(`select[name=reason_code]`), "customer_agreement"),
		chromedp.SendKeys(chromedp.CSS(`input[name=reason]`), "paid by cheque"),
		chromedp.SendKeys(chromedp.CSS(`input[name=owner]`), "ann@finance"),
		chromedp.SetValue(chromedp.CSS(`input[name=expires]`), "2099-12-31"),
		chromedp.SendKeys(chromedp.CSS(`input[name=by]`), "carol"))
	b.shot(t, "workspace-waive.png")
	b.do(t, "sending the waiver", chromedp.Submit(chromedp.CSS(`input[name=reason]`)), chromedp.WaitVisible(chromedp.ID("findings")))

	b.do(t, "opening a record", chromedp.Click(chromedp.CSS(`#findings td.id a`)), chromedp.WaitVisible(chromedp.ID("history")))
	if h := b.eval(t, `document.querySelector("h1").textContent`); !strings.HasPrefix(h, "invoice ") {
		t.Errorf("the record page: %q", h)
	}
	b.shot(t, "workspace-record.png")
	checkRecordPage(t, b, srv.URL, fx)

	b.do(t, "signing off", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("signoff-form")),
		chromedp.SendKeys(chromedp.CSS(`#signoff-form input[name=name]`), "Dana"),
		chromedp.SendKeys(chromedp.CSS(`#signoff-form input[name=role]`), "controller"),
		chromedp.Submit(chromedp.CSS(`#signoff-form input[name=name]`)), chromedp.WaitVisible(chromedp.CSS(`p.signoff`)))

	entries, err := ledger.New(layout.Dir(fx.cfg.Out).Ledger(), time.Now).Read()
	if err != nil {
		t.Fatal(err)
	}
	st := ledger.Fold(entries)
	if len(st.Waivers) != 1 || st.Waivers[0].By != "carol" || st.Waivers[0].ReasonCode != "customer_agreement" || st.Waivers[0].Rule != "paid_without_payment" || len(st.SignOffs) != 1 || st.SignOffs[0].Name != "Dana" {
		t.Fatalf("the ledger after the browser's waiver and sign-off: %+v", st)
	}
	b.check(t)
}

// checkRecordPage opens the record of an invoice whose total is whole (as
// 150.00): the page shows it as DuckDB holds it and as the overview shows
// money, with its two decimals; its dates are dates or UTC times with the
// zone; and a record ID in the findings list stays on one line.
func checkRecordPage(t *testing.T, b *browser, base string, fx *fixture) {
	t.Helper()
	db, err := snapshot.OpenRead(context.Background(), fx.cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	var id, total string
	err = db.QueryRow(`SELECT id, CAST(total_amount AS VARCHAR) FROM latest_invoices
		WHERE total_amount = floor(total_amount) AND total_amount BETWEEN 100 AND 999 ORDER BY id LIMIT 1`).Scan(&id, &total)
	db.Close()
	if err != nil || !strings.HasSuffix(total, ".00") {
		t.Fatalf("no invoice with a whole total: %q, %v", total, err)
	}
	b.do(t, "opening the invoice "+id, chromedp.Navigate(base+"/entities/invoice/"+id), chromedp.WaitVisible(chromedp.ID("record")))
	cell := func(name string) string {
		return b.eval(t, fmt.Sprintf(`(() => { for (const r of document.querySelectorAll("#record tr")) { if (r.querySelector("th").textContent === %q) return r.querySelector("td").textContent } return "none" })()`, name))
	}
	if got := cell("total_amount"); got != total {
		t.Errorf("the record page shows total_amount %q, where DuckDB holds %s", got, total)
	}
	for _, name := range []string{"invoice_date", "due_date"} {
		if got := cell(name); !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2} UTC)?$`).MatchString(got) {
			t.Errorf("the record page shows %s as %q, neither a date nor a UTC time", name, got)
		}
	}
	b.do(t, "the findings list", chromedp.Navigate(base+"/findings"), chromedp.WaitVisible(chromedp.ID("findings")))
	if lines := b.eval(t, `(() => { const r = document.createRange(); r.selectNodeContents(document.querySelector("#findings td.id a")); return String(new Set([...r.getClientRects()].map(x => Math.round(x.top))).size) })()`); lines != "1" {
		t.Errorf("a record ID in the findings list takes %s lines", lines)
	}
}

// A month closed in Chromium, logged in with a token of one's own: the
// sign-off and close forms record the user's identity; a finding of the
// month waived after the close, and reconciled, leaves the closed totals
// as they were and is listed as a post-close adjustment with its user;
// the audit log says the chain holds and how each user was known.
func TestClosingAMonthInChromium(t *testing.T) {
	fx := newFixture(t)
	p, _ := findings.ParsePeriod(time.Now().UTC().AddDate(0, -1, 0).Format("2006-01"))
	rep := fx.reconcilePeriod(t, p)
	srv := fx.serveWith(t, func(o *Options) { o.Access = closeAccess(t) })
	// The month's flux review, explained through the API (TestTheFluxPanelInChromium
	// walks the panel): each explanation is a ledger entry.
	explainFlux(t, func(c call) answer { return do(t, srv, c) }, p.String(), "erin")
	explained := 0
	for _, l := range fluxOfAPI(t, func(c call) answer { return do(t, srv, c) }, p.String()).Lines {
		if l.Explanation != nil {
			explained++
		}
	}
	b := newBrowser(t, srv.URL)
	overview := srv.URL + "/?period=" + p.String()
	b.do(t, "logging in", chromedp.Navigate(overview), chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "dana"),
		chromedp.SendKeys(chromedp.CSS(`input[name=token]`), closeUsers["dana"]),
		chromedp.Submit(chromedp.CSS(`input[name=token]`)), chromedp.WaitVisible(chromedp.ID("signoff-form")))
	if n := b.eval(t, `String(document.querySelectorAll('#signoff-form input[name=name]').length)`); n != "0" {
		t.Errorf("the sign-off form asks for a name under identity: %s fields", n)
	}
	b.do(t, "signing off", chromedp.SendKeys(chromedp.CSS(`#signoff-form input[name=role]`), "controller"),
		chromedp.Submit(chromedp.CSS(`#signoff-form input[name=role]`)), chromedp.WaitVisible(chromedp.ID("close-form")))
	b.do(t, "closing", chromedp.SendKeys(chromedp.CSS(`#close-form input[name=comment]`), "month end"),
		chromedp.Submit(chromedp.CSS(`#close-form input[name=comment]`)), chromedp.WaitVisible(chromedp.ID("closed-totals")))
	closedTotals := b.eval(t, `document.getElementById("closed-totals").innerText`)

	var target findings.Finding
	for _, f := range rep.Findings {
		if f.Status != "resolved" && f.Waiver == nil && f.Amount != 0 {
			target = f
			break
		}
	}
	b.do(t, "waiving after the close", chromedp.Navigate(srv.URL+"/waive?rule="+target.Rule+"&entity_id="+target.EntityID+"&back=/"),
		chromedp.WaitVisible(chromedp.ID("waive-form")),
		chromedp.SetValue(chromedp.CSS(`select[name=reason_code]`), "credit_note"),
		chromedp.SendKeys(chromedp.CSS(`input[name=reason]`), "credit note"),
		chromedp.SendKeys(chromedp.CSS(`input[name=owner]`), "dana"),
		chromedp.SetValue(chromedp.CSS(`input[name=expires]`), "2099-12-31"),
		chromedp.Submit(chromedp.CSS(`input[name=reason]`)), chromedp.WaitVisible(chromedp.ID("verdict")))
	fx.reconcilePeriod(t, p)
	b.do(t, "the overview after it", chromedp.Navigate(overview), chromedp.WaitVisible(chromedp.ID("adjustments")))
	if got := b.eval(t, `document.getElementById("closed-totals").innerText`); got != closedTotals {
		t.Errorf("the closed totals moved:\n%s\nwere\n%s", got, closedTotals)
	}
	adj := b.eval(t, `document.getElementById("adjustments").innerText`)
	if !strings.Contains(adj, "dana") || !strings.Contains(adj, "waived "+target.Rule+" "+target.EntityID) || !strings.Contains(adj, "reconciled snapshot") {
		t.Errorf("the post-close adjustments:\n%s", adj)
	}
	if b.eval(t, `String(!!document.getElementById("evidence"))`) != "true" {
		t.Error("the closed overview offers no evidence pack")
	}
	b.shot(t, "workspace-closed.png")
	b.do(t, "the audit log", chromedp.Navigate(srv.URL+"/audit"), chromedp.WaitVisible(chromedp.ID("chain")))
	if chain := b.eval(t, `document.getElementById("chain").innerText`); !strings.HasPrefix(chain, fmt.Sprintf("The chain holds: %d entries", 3+explained)) {
		t.Errorf("the audit log's chain: %q", chain)
	}
	if audit := b.eval(t, `document.getElementById("audit").innerText`); !strings.Contains(audit, "own token") || !strings.Contains(audit, "post-close adjustment of C") {
		t.Errorf("the audit log:\n%s", audit)
	}
	b.check(t)
}

// The store's history in Chromium: the overview's count of updated
// customers opens the changes page listing them, each record links to
// its page, whose timeline shows the update, old → new, with no console
// error and no request outside the workspace; a deleted customer's page
// shows its deletion; a record with a 500-character Email is no wider
// than the window. It takes the screenshots of the changes page and of
// a timeline when BILLSNAP_SCREENSHOT_DIR is set.
func TestHistoryInChromium(t *testing.T) {
	c := newChangedStore(t)
	srv := c.serve(t, "")
	b := newBrowser(t, srv.URL)
	b.do(t, "the overview", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("step")))
	b.shot(t, "workspace-overview-changes.png")
	b.do(t, "the updated customers", chromedp.Click(chromedp.CSS(`#step tr[data-table=customers] td:nth-child(3) a`)),
		chromedp.WaitVisible(chromedp.ID("changes")))
	if n := b.eval(t, `String(document.querySelectorAll("#changes tbody tr.update").length)`); n != "3" {
		t.Errorf("the changes page of the updated customers lists %s, want 3", n)
	}
	b.shot(t, "workspace-changes.png")
	b.do(t, "the renamed customer", chromedp.Navigate(srv.URL+"/entities/customer/"+c.name), chromedp.WaitVisible(chromedp.ID("timeline")))
	row := b.eval(t, `document.querySelector("#timeline li.update table.changes tbody tr").innerText`)
	if !strings.Contains(row, "FullName") || !strings.Contains(row, c.oldName+` Jr"`) || !strings.Contains(row, "→") {
		t.Errorf("the timeline's update: %q", row)
	}
	b.do(t, "the timeline", chromedp.ScrollIntoView(chromedp.ID("timeline")))
	b.shot(t, "workspace-timeline.png")
	b.do(t, "the hostile customer", chromedp.Navigate(srv.URL+"/entities/customer/"+c.email), chromedp.WaitVisible(chromedp.ID("timeline")))
	if w := b.eval(t, `String(document.documentElement.scrollWidth <= window.innerWidth)`); w != "true" {
		t.Error("the hostile customer's page, its 500-character Email, is wider than the window")
	}
	b.shot(t, "workspace-timeline-hostile.png")
	b.do(t, "the deleted customer", chromedp.Navigate(srv.URL+"/entities/customer/"+c.deleted), chromedp.WaitVisible(chromedp.ID("timeline")))
	if d := b.eval(t, `document.querySelector("#timeline li.deleted .ended").innerText`); !strings.HasPrefix(d, "Deleted at ") {
		t.Errorf("the deleted customer's timeline ends %q", d)
	}
	b.check(t)
}
