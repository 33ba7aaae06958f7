//go:build heavy

package workspace

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/hostile"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/workspace/record"
)

// A record whose raw JSON is nested 200,000 levels deep (from a hostile
// service, over HTTP) has a page that says why its raw JSON is shown as
// text, and shows the text, cut; the API says the same. A shallow record
// keeps its raw JSON as JSON.
func TestADeepRecordSaysWhyItsRawIsText(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Start(t, sandbox.Options{Seed: 4, Customers: 5}, "")
	hs := hostile.Start(t, sb, hostile.Attacks{Depth: 200_000})
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = hs.BaseURL(), hs.FrontURL(), t.TempDir(), "none"
	fx := &fixture{sb: sb, cfg: cfg}
	fx.export(t)
	fx.reconcile(t)
	deep, shallow := deepestCustomers(t, fx)
	srv := fx.serve(t, "")
	page := do(t, srv, call{path: "/entities/customer/" + deep})
	note := "The raw JSON is nested deeper than 1000 levels, more than this page shows as JSON: shown as text, its first 64 KB of"
	if page.status != http.StatusOK || !strings.Contains(html.UnescapeString(page.body), note) ||
		!strings.Contains(html.UnescapeString(page.body), `<pre id="raw">{"`) {
		t.Fatalf("the deep record's page: %d, want the note %q and the text\n%.2000s", page.status, note, page.body)
	}
	var v record.View
	getJSON(t, srv, "/api/entities/customer/"+deep, &v)
	if string(v.Raw) != "null" || !strings.HasPrefix(v.RawNote, note) || len(v.RawText) != 64<<10 || !strings.Contains(v.RawText, "[[[[") {
		t.Errorf("the deep record's API: raw %.40s, note %q, text of %d bytes", v.Raw, v.RawNote, len(v.RawText))
	}
	var s record.View
	getJSON(t, srv, "/api/entities/customer/"+shallow, &s)
	if len(s.Raw) == 0 || s.RawNote != "" || !strings.Contains(string(s.Raw), `"ID"`) {
		t.Errorf("a shallow record's API: raw %.200s, note %q", s.Raw, s.RawNote)
	}
}
