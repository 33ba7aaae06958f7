//go:build heavy

package workspace

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/billsnap/billsnap/findings"
)

// The flux panel in Chromium, logged in with a token of one's own: the
// overview of the month links it; the sign-off form is refused (409,
// naming billed EUR, over the threshold after a large invoice) until each
// line over it is explained through the panel's forms; then the panel
// says the period may be signed off, and the sign-off is recorded.
func TestTheFluxPanelInChromium(t *testing.T) {
	fx := newFixture(t)
	p := findings.MonthOf(time.Now(), -1)
	bigInvoice(t, fx.sb, p, "EUR", 5_000_000)
	fx.export(t)
	fx.reconcilePeriod(t, p)
	srv := fx.serveWith(t, func(o *Options) { o.Access = closeAccess(t) })
	b := newBrowser(t, srv.URL)
	overview := srv.URL + "/?period=" + p.String()
	b.do(t, "logging in", chromedp.Navigate(overview), chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "dana"),
		chromedp.SendKeys(chromedp.CSS(`input[name=token]`), closeUsers["dana"]),
		chromedp.Submit(chromedp.CSS(`input[name=token]`)), chromedp.WaitVisible(chromedp.ID("signoff-form")))
	b.do(t, "signing off before the review", chromedp.SendKeys(chromedp.CSS(`#signoff-form input[name=role]`), "controller"),
		chromedp.Submit(chromedp.CSS(`#signoff-form input[name=role]`)), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	if msg := b.eval(t, `document.querySelector("p.error").innerText`); !strings.Contains(msg, "billed EUR") || !strings.Contains(msg, "flux review") {
		t.Errorf("the refused sign-off says: %s", msg)
	}
	b.forget("status of 409") // the refusal itself, which this test asks for

	b.do(t, "opening the panel from the overview", chromedp.Navigate(overview), chromedp.WaitVisible(chromedp.ID("flux-link")),
		chromedp.Click(chromedp.CSS(`#flux-link a`)), chromedp.WaitVisible(chromedp.ID("flux")), chromedp.WaitVisible(chromedp.ID("flux-blocked")))
	n := 0
	fmt.Sscan(b.eval(t, `String(document.querySelectorAll(".explain-form").length)`), &n)
	if n == 0 || b.eval(t, `String(!!document.querySelector('tr[data-measure="billed"][data-currency="EUR"] .explain-form'))`) != "true" {
		t.Fatalf("the panel offers %d explain forms, none for billed EUR", n)
	}
	b.shot(t, "workspace-flux.png")
	for i := range n {
		// The page before the submit is marked, so that the wait is for
		// the page the redirect loads, not for the #flux still showing.
		b.eval(t, `document.body.dataset.stale = "1"`)
		b.do(t, fmt.Sprintf("explaining line %d of %d", i+1, n),
			chromedp.SendKeys(chromedp.CSS(`.explain-form textarea[name=text]`), "the annual contract billed in "+p.String()),
			chromedp.Submit(chromedp.CSS(`.explain-form textarea[name=text]`)),
			chromedp.WaitVisible(chromedp.CSS(`body:not([data-stale]) #flux`)))
	}
	b.do(t, "the panel once explained", chromedp.WaitVisible(chromedp.ID("flux-ready")))
	if left := b.eval(t, `String(document.querySelectorAll(".explain-form").length)`); left != "0" {
		t.Fatalf("%s explain forms left after %d explanations", left, n)
	}
	if got := b.eval(t, `document.querySelector('tr[data-measure="billed"][data-currency="EUR"]').innerText`); !strings.Contains(got, "the annual contract") || !strings.Contains(got, "dana") {
		t.Errorf("billed EUR once explained: %s", got)
	}
	b.do(t, "signing off once explained", chromedp.Navigate(overview), chromedp.WaitVisible(chromedp.ID("signoff-form")),
		chromedp.SendKeys(chromedp.CSS(`#signoff-form input[name=role]`), "controller"),
		chromedp.Submit(chromedp.CSS(`#signoff-form input[name=role]`)), chromedp.WaitVisible(chromedp.CSS(`p.signoff`)))
	b.check(t)
}

// forget drops the problems noted so far that contain text.
func (b *browser) forget(text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var keep []string
	for _, p := range b.problems {
		if !strings.Contains(p, text) {
			keep = append(keep, p)
		}
	}
	b.problems = keep
}
