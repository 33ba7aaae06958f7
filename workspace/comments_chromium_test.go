//go:build heavy

package workspace

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
)

// In Chromium, erin opens a finding's record, writes a comment (two lines,
// markup in it) in its thread's form and sends it; the page comes back to
// the thread, which shows it as text under her name; dana, logging in,
// adds hers below it; no console error, no request outside the workspace.
func TestACommentThreadInChromium(t *testing.T) {
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := openOf(t, fx)
	page := "/entities/" + f.Entity + "/" + url.PathEscape(f.EntityID)
	form := `#comments .thread[data-rule="` + f.Rule + `"] form.comment-form`
	// say sends text as the thread's nth comment and waits for the page that
	// shows it: the page before the submit may already show earlier ones.
	say := func(b *browser, who, text string, nth int) {
		b.do(t, who+" commenting", chromedp.WaitVisible(chromedp.CSS(form+` textarea`)),
			chromedp.SendKeys(chromedp.CSS(form+` textarea`), text), chromedp.Submit(chromedp.CSS(form+` textarea`)),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#comments .thread[data-rule="%s"] li.comment:nth-of-type(%d)`, f.Rule, nth))))
	}
	erin := loginAs(t, srv.URL, "erin", page, "#comments")
	say(erin, "erin", "Asked billing ops.\n<b>Ticket</b> OPS-42.", 1)
	if got := erin.eval(t, `location.hash`); got != "#comments" {
		t.Errorf("after commenting, the page is at %q, want its #comments", got)
	}
	erin.check(t)

	dana := loginAs(t, srv.URL, "dana", page, "#comments")
	say(dana, "dana", "Fixed at the source; it resolves on the next export.", 2)
	thread := dana.eval(t, `Array.from(document.querySelectorAll('#comments .thread[data-rule="`+f.Rule+`"] li.comment')).map(li => li.querySelector(".by").textContent + ": " + li.querySelector(".text").textContent).join("|")`)
	if want := "erin: Asked billing ops.\n<b>Ticket</b> OPS-42.|dana: Fixed at the source; it resolves on the next export."; thread != want {
		t.Errorf("the thread reads %q, want %q", thread, want)
	}
	if bold := dana.eval(t, `String(document.querySelectorAll("#comments li.comment b").length)`); bold != "0" {
		t.Errorf("the comment's markup was rendered: %s <b> elements", bold)
	}
	dana.shot(t, "workspace-comments.png")
	dana.check(t)
}
