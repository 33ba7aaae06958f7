//go:build heavy

package workspace

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
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

// The overview in Chromium, at 1,280 px: the month's overview opens on
// its five tiles, each with its label and figure, then its charts, each
// under a visible heading, drawn (not empty) and described (an SVG title
// and description); its tables come after the charts, and the sign-off
// and the close are panels of their own. It takes the screenshots of
// docs/workspace.md (BILLSNAP_SCREENSHOT_DIR=docs/img).
func TestTheOverviewInChromium(t *testing.T) {
	fx := newFixture(t)
	p := findings.MonthOf(time.Now(), -1)
	fx.reconcilePeriod(t, p)
	fx.export(t)
	fx.reconcilePeriod(t, p)
	srv := fx.serve(t, "")
	rule := fx.reconciled.Open()[0].Rule
	if a := do(t, srv, call{method: "POST", path: "/api/assignments", contentType: "application/json",
		body: `{"filter": {"rule": "` + rule + `"}, "assignee": "dana", "by": "erin"}`}); a.status != 201 {
		t.Fatalf("assigning %s: %d %s", rule, a.status, a.body)
	}
	b := newBrowser(t, srv.URL)
	b.do(t, "the month's overview", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/?period="+p.String()), chromedp.WaitVisible(chromedp.ID("tiles")))
	tiles := b.eval(t, `[...document.querySelectorAll("#tiles .tile")].map(t => t.id + "=" + t.querySelector(".label").innerText + ":" + [...t.querySelectorAll(".figure")].map(f => f.innerText).join(",")).join(" | ")`)
	for _, id := range []string{"tile-at-risk=Money at risk (gross):", "tile-open=Open findings:", "tile-overdue=Overdue:", "tile-unassigned=Unassigned:", "tile-new=New since "} {
		if !strings.Contains(tiles, id) {
			t.Errorf("the tiles lack %q: %s", id, tiles)
		}
	}
	charts := b.eval(t, `[...document.querySelectorAll("#charts figure.chart")].map(f => {
		const h = f.querySelector("h3"), s = f.querySelector("svg");
		const seen = h && h.getBoundingClientRect().height > 0 && getComputedStyle(h).visibility === "visible";
		const drawn = s && s.getBoundingClientRect().height > 50 && s.querySelector("title") && s.querySelector("desc") ? "drawn" : "empty";
		return f.id + (seen ? " titled " + JSON.stringify(h.innerText) : " untitled") + " " + drawn }).join("\n")`)
	for _, want := range []string{"chart-at-risk-EUR titled \"Money at risk in EUR, gross\" drawn", "chart-aging titled \"Aging of the open findings\" drawn",
		"chart-rules titled \"Open findings by rule\" drawn", "chart-flux-EUR titled \"Flux in EUR, " + p.String() + " against the month before\" drawn",
		"chart-counts titled \"Open findings per snapshot\" drawn"} {
		if !strings.Contains(charts, want) {
			t.Errorf("the charts lack %s:\n%s", want, charts)
		}
	}
	order := b.eval(t, `["tiles", "charts", "rules", "signoff-form", "close-panel"].map(id => Math.round(document.getElementById(id).getBoundingClientRect().top)).join(" ")`)
	var at []int
	for _, f := range strings.Fields(order) {
		var n int
		fmt.Sscan(f, &n)
		at = append(at, n)
	}
	for i := 1; i < len(at); i++ {
		if len(at) != 5 || at[i] <= at[i-1] {
			t.Errorf("the tiles, charts, rules, sign-off and close are at %s px, not in that order", order)
			break
		}
	}
	if b.eval(t, `String(!!document.querySelector("#signoff-form").closest("section").querySelector("#close-form, #close-needs"))`) != "false" {
		t.Error("the close sits in the sign-off's panel")
	}
	b.shot(t, "overview.png")
	b.do(t, "the findings", chromedp.Navigate(srv.URL+"/findings?period="+p.String()), chromedp.WaitVisible(chromedp.ID("findings")))
	b.shotView(t, "findings.png")
	b.check(t)
}

// shotView keeps a screenshot of the window (not the whole page) as
// name, as shot does.
func (b *browser) shotView(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := cmp.Or(os.Getenv("BILLSNAP_SCREENSHOT_DIR"), t.TempDir())
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
