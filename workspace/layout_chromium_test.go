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

// pageWidths are the window widths no page may be wider than.
var pageWidths = []int64{1280, 1920}

// workspacePages are the paths of every page of the workspace on fx's
// store, reconciled whole and for month p: the overviews, the lists, a
// record, the waive and assign forms (of the list's first finding), the
// changes, the waivers, the audit log and the flux review.
func workspacePages(t *testing.T, b *browser, base string, p *findings.Period) []string {
	t.Helper()
	b.do(t, "the findings list", chromedp.Navigate(base+"/findings"), chromedp.WaitVisible(chromedp.ID("findings")))
	href := func(sel string) string {
		h := b.eval(t, fmt.Sprintf(`(document.querySelector(%q) || {}).getAttribute ? document.querySelector(%q).getAttribute("href") : ""`, sel, sel))
		if h == "" {
			t.Fatalf("the findings list has no %s", sel)
		}
		return h
	}
	return []string{"/", "/?period=" + p.String(), "/findings", "/findings?period=" + p.String(), "/findings?status=open&waived=no",
		href(`#findings td.id a`), href(`#findings a.button[href^="/waive"]`), href(`#findings a.button[href^="/assign"]`),
		"/changes", "/waivers", "/audit", "/flux?period=" + p.String()}
}

// fits tells whether "scroll of client" widths fit.
func fits(s string) bool {
	var scroll, client int
	_, err := fmt.Sscanf(s, "%d of %d", &scroll, &client)
	return err == nil && scroll <= client
}

// No page of the workspace is wider than the window, at 1,280 and 1,920
// px: the document's scroll width is at most the window's inner width
// (a table may scroll inside its own box, the page may not).
func TestNoPageIsWiderThanTheWindow(t *testing.T) {
	fx := newFixture(t)
	p := findings.MonthOf(time.Now(), -1)
	fx.reconcilePeriod(t, p)
	srv := fx.serve(t, "")
	b := newBrowser(t, srv.URL)
	pages := workspacePages(t, b, srv.URL, p)
	for _, w := range pageWidths {
		b.do(t, fmt.Sprintf("a window %d px wide", w), chromedp.EmulateViewport(w, 900))
		for _, path := range pages {
			b.do(t, path, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS("footer")))
			got := b.eval(t, `document.documentElement.scrollWidth + " " + window.innerWidth`)
			var doc, win int64
			if _, err := fmt.Sscan(got, &doc, &win); err != nil || win != w {
				t.Fatalf("%s at %d px: scroll and inner width %q", path, w, got)
			}
			if doc > win {
				t.Errorf("%s at %d px: the document is %d px wide", path, w, doc)
			}
			if strings.HasPrefix(path, "/findings") {
				if s := b.eval(t, `(b => b.scrollWidth + " of " + b.clientWidth)(document.querySelector("#findings").parentElement)`); !fits(s) {
					t.Errorf("%s at %d px: the list scrolls in its box, %s px", path, w, s)
					t.Log(b.eval(t, `[...document.querySelectorAll("#findings td.id a")].map(a => a.innerText).sort((x, y) => y.length - x.length).slice(0, 3).join(" | ")`))
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("pages: %s", strings.Join(pages, " "))
	}
	b.check(t)
}
