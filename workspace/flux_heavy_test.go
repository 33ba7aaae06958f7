//go:build heavy

package workspace

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/sandbox"
)

// The flux review of a period through the real server: billed is the
// sandbox's invoices of each month; a big invoice puts billed over the
// threshold and the sign-off is refused (409) naming the line until it is
// explained; an explanation of a line within the threshold is 422, bad
// text 400; an explanation is an attributed, chained ledger entry with
// its figures; when a later export moves the figures the explanation is
// stale and the sign-off is refused again.
func TestTheFluxReviewGatesTheSignOff(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p := findings.MonthOf(time.Now(), -1)
	P := p.String()
	fx.reconcilePeriod(t, p)
	srv := fx.serveWith(t, func(o *Options) { o.Access = closeAccess(t) })
	send := func(c call) answer { return do(t, srv, c) }

	if raw := send(as("dana", call{path: "/api/flux?period=" + P})).body; !strings.Contains(raw, `"percent": "10"`) || !strings.Contains(raw, `"over_threshold": `) ||
		!strings.Contains(raw, `"change_pct": `) || !strings.Contains(raw, `"amount": "1000.00"`) {
		t.Errorf("the review's JSON keys: %s", raw)
	}
	v := fluxOfAPI(t, send, P)
	if v.Previous != findings.MonthOf(p.Start, -1).String() || len(v.Lines) == 0 || v.Threshold != flux.DefaultOptions() {
		t.Fatalf("the review of %s: %+v", P, v)
	}
	for i, m := range []*findings.Period{findings.MonthOf(p.Start, -1), p} {
		for cur, want := range billedBySandbox(t, fx.sb, m) {
			l := fluxLine(v, flux.Billed, cur)
			if got := []string{l.Previous, l.Current}[i]; l == nil || got != want.String() {
				t.Errorf("billed %s of %s: %+v, the sandbox's invoices %s", cur, m, l, want)
			}
		}
	}

	bigInvoice(t, fx.sb, p, "EUR", 5_000_000)
	fx.export(t)
	fx.reconcilePeriod(t, p)
	v = fluxOfAPI(t, send, P)
	billed := fluxLine(v, flux.Billed, "EUR")
	if billed == nil || !billed.Over || billed.Explanation != nil || v.Unexplained == 0 {
		t.Fatalf("billed EUR after an invoice of 50,000.00: %+v", billed)
	}
	signOff := call{method: http.MethodPost, path: "/api/signoffs", body: `{"period": "` + P + `", "role": "controller"}`}
	if a := send(as("dana", signOff)); a.status != http.StatusConflict || !strings.Contains(a.body, "billed EUR ("+billed.Previous+" → "+billed.Current+")") {
		t.Fatalf("a sign-off with billed unexplained: %d %s", a.status, a.body)
	}

	explain := func(user, measure, cur, text string) answer {
		b, _ := json.Marshal(map[string]string{"measure": measure, "currency": cur, "text": text})
		return send(as(user, call{method: http.MethodPost, path: "/api/flux/" + P + "/explanations", body: string(b)}))
	}
	ledgerPath := layout.Dir(fx.cfg.Out).Ledger()
	before, _ := os.ReadFile(ledgerPath)
	for _, l := range v.Lines {
		if !l.Over {
			if a := explain("erin", l.Measure, l.Currency, "nothing to say"); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "not over the threshold") {
				t.Errorf("an explanation of %s %s, within the threshold: %d %s", l.Measure, l.Currency, a.status, a.body)
			}
			break
		}
	}
	for name, c := range map[string]struct {
		measure, text string
		status        int
	}{
		"a currency without a line": {flux.Billed, "x", http.StatusUnprocessableEntity},
		"an unknown measure":        {"vibes", "x", http.StatusBadRequest},
		"a control character":       {flux.Billed, "moved\x1b[2J", http.StatusBadRequest},
		"4,001 bytes":               {flux.Billed, strings.Repeat("x", 4001), http.StatusBadRequest},
		"no text":                   {flux.Billed, "  ", http.StatusBadRequest},
	} {
		cur := "EUR"
		if name == "a currency without a line" {
			cur = "XXX"
		}
		if a := explain("erin", c.measure, cur, c.text); a.status != c.status || strings.Count(strings.TrimSpace(a.body), "\n") > 2 {
			t.Errorf("%s: %d %s, want %d", name, a.status, a.body, c.status)
		}
	}
	if after, _ := os.ReadFile(ledgerPath); string(after) != string(before) {
		t.Fatal("a refused explanation reached the ledger")
	}

	for _, l := range v.Lines {
		if l.Over {
			if a := explain("erin", l.Measure, l.Currency, "the annual contract with ACME was billed in "+P); a.status != http.StatusCreated {
				t.Fatalf("explaining %s %s: %d %s", l.Measure, l.Currency, a.status, a.body)
			}
		}
	}
	v = fluxOfAPI(t, send, P)
	x := fluxLine(v, flux.Billed, "EUR").Explanation
	if x == nil || x.Stale || x.By != "erin" || x.Auth != "tokens" || x.Previous != billed.Previous || x.Current != billed.Current || v.Unexplained != 0 {
		t.Fatalf("billed EUR once explained: %+v (%d unexplained)", x, v.Unexplained)
	}
	if _, err := ledger.New(ledgerPath, time.Now).Verify(); err != nil {
		t.Fatalf("the ledger after the explanations: %v", err)
	}
	if a := send(as("dana", signOff)); a.status != http.StatusCreated {
		t.Fatalf("the sign-off once explained: %d %s", a.status, a.body)
	}

	// A later export moves billed: the explanation no longer counts.
	if err := fx.sb.Change("Invoices", "f1a70000-0000-4000-8000-000000000001", func(r any) { r.(*sandbox.Invoice).TotalAmount += 1_000_000 }); err != nil {
		t.Fatal(err)
	}
	fx.export(t)
	fx.reconcilePeriod(t, p)
	v = fluxOfAPI(t, send, P)
	if l := fluxLine(v, flux.Billed, "EUR"); l.Explanation == nil || !l.Explanation.Stale || l.Explanation.ID != x.ID || v.Unexplained == 0 {
		t.Fatalf("billed EUR after the figures moved: %+v", l)
	}
	if a := send(as("dana", signOff)); a.status != http.StatusConflict || !strings.Contains(a.body, "billed EUR") || !strings.Contains(a.body, "stale") {
		t.Fatalf("a sign-off with a stale explanation: %d %s", a.status, a.body)
	}
}

// The flux panel, through the real server's pages: reached from the
// period's overview, it says the sign-off is refused and offers a form
// for each line over the threshold; the sign-off form is refused (409)
// until each is explained through the panel's forms, whose text is shown
// escaped; the audit log lists the explanations; a ledger that does not
// verify refuses an explanation (409) and is left as it was.
func TestTheFluxPanelExplainsThroughItsForms(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p := findings.MonthOf(time.Now(), -1)
	P := p.String()
	bigInvoice(t, fx.sb, p, "EUR", 5_000_000)
	fx.export(t)
	fx.reconcilePeriod(t, p)
	srv := fx.serve(t, "")
	form := "application/x-www-form-urlencoded"

	overview := do(t, srv, call{path: "/?period=" + P}).body
	if !strings.Contains(overview, `id="flux-link"`) || !strings.Contains(overview, `period=`+P+`">Flux review of `+P) {
		t.Fatalf("the overview of %s does not link its flux review", P)
	}
	panel := do(t, srv, call{path: "/flux?period=" + P})
	if panel.status != http.StatusOK || !strings.Contains(panel.body, `id="flux-blocked"`) ||
		!strings.Contains(panel.body, `data-measure="billed" data-currency="EUR"`) || !strings.Contains(panel.body, `class="box explain-form"`) {
		t.Fatalf("the panel before any explanation: %d %s", panel.status, panel.body)
	}
	csrf := csrfOf(t, srv)
	signOff := url.Values{"csrf": {csrf}, "snapshot": {"latest"}, "period": {P}, "name": {"carol"}, "role": {"controller"}}
	if a := do(t, srv, call{method: http.MethodPost, path: "/signoffs", body: signOff.Encode(), contentType: form}); a.status != http.StatusConflict || !strings.Contains(a.body, "billed EUR") {
		t.Fatalf("the sign-off form before the explanations: %d %s", a.status, a.body)
	}
	v := fluxOfAPI(t, func(c call) answer { return do(t, srv, c) }, P)
	for _, l := range v.Lines {
		if !l.Over {
			continue
		}
		f := url.Values{"csrf": {csrf}, "snapshot": {v.Snapshot}, "measure": {l.Measure}, "currency": {l.Currency}, "text": {evilName + " moved it"},
			"by": {"carol"}, "back": {"/flux?period=" + P}}
		a := do(t, srv, call{method: http.MethodPost, path: "/flux/" + P + "/explanations", body: f.Encode(), contentType: form})
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/flux?period="+P {
			t.Fatalf("the explain form of %s %s: %d %s", l.Measure, l.Currency, a.status, a.body)
		}
	}
	panel = do(t, srv, call{path: "/flux?period=" + P})
	if !strings.Contains(panel.body, `id="flux-ready"`) || strings.Contains(panel.body, "<script>") || !strings.Contains(panel.body, "&lt;script&gt;alert(1)&lt;/script&gt; moved it") ||
		strings.Contains(panel.body, `class="box explain-form"`) {
		t.Fatalf("the panel once explained: %s", panel.body)
	}
	if a := do(t, srv, call{method: http.MethodPost, path: "/signoffs", body: signOff.Encode(), contentType: form}); a.status != http.StatusSeeOther {
		t.Fatalf("the sign-off form once explained: %d %s", a.status, a.body)
	}
	if audit := do(t, srv, call{path: "/audit"}).body; !strings.Contains(audit, "explained billed EUR of "+P) {
		t.Error("the audit log does not list the explanation")
	}

	ledgerPath := layout.Dir(fx.cfg.Out).Ledger()
	f, _ := os.OpenFile(ledgerPath, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":99,"action":"explain"`)
	f.Close()
	before, _ := os.ReadFile(ledgerPath)
	b := `{"measure": "billed", "currency": "EUR", "text": "again", "by": "carol"}`
	if a := do(t, srv, call{method: http.MethodPost, path: "/api/flux/" + P + "/explanations", body: b, contentType: "application/json"}); a.status != http.StatusConflict || !strings.Contains(a.body, "billsnap ledger verify") {
		t.Errorf("an explanation on a ledger that does not verify: %d %s", a.status, a.body)
	}
	if after, _ := os.ReadFile(ledgerPath); string(after) != string(before) {
		t.Error("a refused explanation changed the ledger")
	}
}
