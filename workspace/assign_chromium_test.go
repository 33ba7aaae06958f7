//go:build heavy

package workspace

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// loginAs logs user of twoUsers in at path in a new Chromium, and waits
// for sel.
func loginAs(t *testing.T, base, user, path, sel string) *browser {
	t.Helper()
	b := newBrowser(t, base)
	b.do(t, user+" logging in", chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), user),
		chromedp.SendKeys(chromedp.CSS(`input[name=token]`), twoUsers[user]),
		chromedp.Submit(chromedp.CSS(`input[name=token]`)), chromedp.WaitVisible(chromedp.CSS(sel)))
	return b
}

// In Chromium, erin assigns a finding to dana through the findings list's
// Assign link and its form; dana, logging in, lands on her queue, which
// lists that finding as hers; no console error, no request outside the
// workspace.
func TestTheQueueInChromium(t *testing.T) {
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	erin := loginAs(t, srv.URL, "erin", "/findings", "#findings")
	entity := erin.eval(t, `document.querySelector("#findings tbody tr td.id a").textContent`)
	erin.do(t, "the assign form", chromedp.Click(chromedp.CSS(`#findings tbody tr td.work a.button`)), chromedp.WaitVisible(chromedp.ID("assign-form")),
		chromedp.SendKeys(chromedp.CSS(`#assign-form input[name=assignee]`), "dana"))
	erin.shot(t, "workspace-assign.png")
	erin.do(t, "assigning", chromedp.Submit(chromedp.CSS(`#assign-form input[name=assignee]`)), chromedp.WaitVisible(chromedp.ID("findings")))
	erin.check(t)

	dana := loginAs(t, srv.URL, "dana", "/findings", "#queue")
	rows := dana.eval(t, `Array.from(document.querySelectorAll("#findings tbody tr")).map(r => r.querySelector("td.id a").textContent + " " + r.querySelector("td.work .assignee").textContent).join("|")`)
	if rows != entity+" dana" {
		t.Errorf("dana's queue: %q, want %s assigned to dana", rows, entity)
	}
	if !strings.Contains(dana.eval(t, `location.search`), "assignee=me") {
		t.Errorf("dana landed on %s", dana.eval(t, `location.href`))
	}
	dana.shot(t, "workspace-queue.png")
	dana.check(t)
}
