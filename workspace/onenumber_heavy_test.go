//go:build heavy

package workspace

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
)

// The count of open findings (neither resolved nor waived) is one number:
// the overview's header, the sum of its rules table, the reconciliation
// as the API lists it, the run's record that status shows, the sign-off
// and the close say the same, before and after a waiver.
func TestOneCountOfOpenFindings(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p, _ := findings.ParsePeriod(time.Now().UTC().AddDate(0, -1, 0).Format("2006-01"))
	rep := fx.reconcilePeriod(t, p)
	srv := fx.serve(t, "")
	P := p.String()
	check := func(when string, want int) {
		t.Helper()
		page := do(t, srv, call{path: "/?period=" + P}).body
		header, rules := openOnOverview(t, page)
		link := regexp.MustCompile(`<a href="([^"]*)" id="open-count">`).FindStringSubmatch(page)
		if link == nil || !strings.Contains(do(t, srv, call{path: html.UnescapeString(link[1])}).body, `id="count">`+plural.Of(want, "finding")) {
			t.Errorf("%s: the header's count does not lead to a list of %s: %v", when, plural.Of(want, "finding"), link)
		}
		var snaps []apiSnapshot
		getJSON(t, srv, "/api/snapshots", &snaps)
		api := -1
		for _, r := range snaps[0].Reconciliations {
			if r.Period == P {
				api = r.Findings
			}
		}
		if header != want || rules != want || api != want || journaled(t, fx) != want {
			t.Errorf("%s: header %d, rules table %d, /api/snapshots %d, the run's record %d; want %d", when, header, rules, api, journaled(t, fx), want)
		}
	}
	open := rep.OpenCount()
	var target findings.Finding
	waived := 0
	for _, f := range rep.Open() {
		if f.Waiver != nil {
			waived++
		} else if target.EntityID == "" {
			target = f
		}
	}
	if target.EntityID == "" || open != len(rep.Open())-waived {
		t.Fatalf("period %s: %d open findings of %d, %d waived", P, open, len(rep.Open()), waived)
	}
	check("before the waiver", open)

	if a := do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: waiverBody(target.Rule, target.EntityID),
		contentType: "application/json"}); a.status != http.StatusCreated {
		t.Fatalf("POST /api/waivers: %d %s", a.status, a.body)
	}
	check("after the waiver, as reconciled before it", open)
	fx.reconcilePeriod(t, p)
	check("reconciled after the waiver", open-1)

	var so, closed struct{ Findings int }
	explainFlux(t, func(c call) answer { return do(t, srv, c) }, P, "erin") // what a sign-off waits for (flux.md)
	a := do(t, srv, call{method: http.MethodPost, path: "/api/signoffs", contentType: "application/json",
		body: `{"period": "` + P + `", "name": "Dana", "role": "controller"}`})
	if a.status != http.StatusCreated || json.Unmarshal([]byte(a.body), &so) != nil || so.Findings != open-1 {
		t.Errorf("the sign-off: %d %s; want %d open findings", a.status, a.body, open-1)
	}
	if page := do(t, srv, call{path: "/?period=" + P}).body; !strings.Contains(section(page, "Sign-off"), plural.Of(open-1, "open finding")) {
		t.Errorf("the overview's sign-off does not say %s:\n%s", plural.Of(open-1, "open finding"), section(page, "Sign-off"))
	}
	a = do(t, srv, call{method: http.MethodPost, path: "/api/periods/" + P + "/close", contentType: "application/json", body: `{"by": "dana"}`})
	if a.status != http.StatusCreated || json.Unmarshal([]byte(a.body), &closed) != nil || closed.Findings != open-1 {
		t.Errorf("the close: %d %s; want %d open findings", a.status, a.body, open-1)
	}
	if page := do(t, srv, call{path: "/?period=" + P}).body; !strings.Contains(section(page, "Closed"), plural.Of(open-1, "finding")+" open at the close") {
		t.Errorf("the overview's close does not say %s open:\n%s", plural.Of(open-1, "finding"), section(page, "Closed"))
	}
}
