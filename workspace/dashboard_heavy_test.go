//go:build heavy

package workspace

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
)

// The overview of a month draws its flux lines, a chart per currency
// holding each line of /api/flux (over the threshold as it says), and
// the money at risk of each currency over two snapshots, gross. Its
// sign-off and its close are two panels: the close asks for a sign-off
// first, then offers its own form, outside the sign-off's.
func TestTheOverviewOfAMonth(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p := findings.MonthOf(time.Now(), -1)
	fx.reconcilePeriod(t, p)
	fx.export(t)
	fx.reconcilePeriod(t, p)
	srv := fx.serve(t, "")
	P := p.String()
	page := do(t, srv, call{path: "/?period=" + P}).body

	checkFluxCharts(t, srv, page, P)
	// Each snapshot's point is the gross of its open, unwaived findings.
	grossAt := map[string]map[string]string{}
	for _, m := range regexp.MustCompile(`data-snapshot="([^"]+)" data-gross="([^"]+)"><title>[^<]*: (\w+) `).FindAllStringSubmatch(page, -1) {
		if grossAt[m[1]] == nil {
			grossAt[m[1]] = map[string]string{}
		}
		grossAt[m[1]][m[3]] = m[2]
	}
	if len(grossAt) != 2 {
		t.Errorf("the money at risk is drawn at %d snapshots, want the two", len(grossAt))
	}
	for snap, drawn := range grossAt {
		var open []apiFindingOut
		getJSON(t, srv, "/api/findings?status=open&waived=no&period="+P+"&snapshot="+snap, &open)
		want := map[string]money.Amount{}
		for _, x := range open {
			if a, err := money.Parse(x.Amount); err == nil && x.Currency != "" {
				want[x.Currency] += a.Abs()
			}
		}
		for c, g := range drawn {
			if g != want[c].String() {
				t.Errorf("the money at risk in %s at %s is drawn at %s, its findings add up to %s", c, snap, g, want[c])
			}
		}
	}

	// A waiver reconciled changes the month's money at risk: the charts
	// draw the review anew.
	var target findings.Finding
	for _, f := range fx.reconciledPeriod(t, srv, P) {
		if f.Amount != "" && f.Amount != "0.00" && f.Currency != "" {
			target = findings.Finding{Rule: f.Rule, EntityID: f.EntityID}
			break
		}
	}
	if a := do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: waiverBody(target.Rule, target.EntityID),
		contentType: "application/json"}); a.status != http.StatusCreated {
		t.Fatalf("POST /api/waivers: %d %s", a.status, a.body)
	}
	fx.reconcilePeriod(t, p)
	page = do(t, srv, call{path: "/?period=" + P}).body
	checkFluxCharts(t, srv, page, P)

	signOff, closing := section(page, "Sign-off"), section(page, "Close")
	if !strings.Contains(signOff, `id="signoff-form"`) || strings.Contains(signOff, "close-form") || !strings.Contains(closing, `id="close-needs"`) {
		t.Errorf("before a sign-off: the sign-off panel\n%s\nthe close panel\n%s", signOff, closing)
	}
	explainFlux(t, func(c call) answer { return do(t, srv, c) }, P, "erin")
	if a := do(t, srv, call{method: http.MethodPost, path: "/api/signoffs", contentType: "application/json",
		body: `{"period": "` + P + `", "name": "Dana", "role": "controller"}`}); a.status != http.StatusCreated {
		t.Fatalf("the sign-off: %d %s", a.status, a.body)
	}
	page = do(t, srv, call{path: "/?period=" + P}).body
	signOff, closing = section(page, "Sign-off"), section(page, "Close")
	if !strings.Contains(signOff, `id="signoff-form"`) || strings.Contains(signOff, "close-form") || !strings.Contains(closing, `id="close-form"`) ||
		strings.Contains(closing, "signoff-form") {
		t.Errorf("after a sign-off: the sign-off panel\n%s\nthe close panel\n%s", signOff, closing)
	}
}
