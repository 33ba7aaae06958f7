package workspace

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
)

// tileFigures are the figures of each tile of the overview page, by the
// tile's ID (tile-open: ["12"]; tile-at-risk: ["EUR 1,234.00", …]).
func tileFigures(t *testing.T, page string) map[string][]string {
	t.Helper()
	_, tiles, ok := strings.Cut(page, `id="tiles"`)
	if !ok {
		t.Fatal("the overview has no tiles")
	}
	tiles, _, _ = strings.Cut(tiles, "</section>")
	out := map[string][]string{}
	fig := regexp.MustCompile(`class="figure[^"]*"[^>]*>([^<]*)<`)
	for _, m := range regexp.MustCompile(`(?s)<div class="tile[^"]*" id="(tile-[a-z-]+)">(.*?)</div>`).FindAllStringSubmatch(tiles, -1) {
		for _, f := range fig.FindAllStringSubmatch(m[2], -1) {
			out[m[1]] = append(out[m[1]], f[1])
		}
	}
	return out
}

// figureOf is the figure (a chart and its heading) of ID id in page, ""
// without one.
func figureOf(page, id string) string {
	_, after, ok := strings.Cut(page, `<figure class="chart" id="`+id+`">`)
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, "</figure>")
	return before
}

// marks are the values of attribute key and count of each mark of a
// chart: data-bucket="8-30" data-count="3" is "8-30": 3.
func marks(chart, key string) map[string]int {
	out := map[string]int{}
	for _, m := range regexp.MustCompile(`data-`+key+`="([^"]*)" data-count="(\d+)"`).FindAllStringSubmatch(chart, -1) {
		out[html.UnescapeString(m[1])], _ = strconv.Atoi(m[2])
	}
	return out
}

// checkAccessible fails unless chart (a figure) has a visible heading
// and its SVG a title and a description that aria-labelledby names.
func checkAccessible(t *testing.T, id, chart string) {
	t.Helper()
	m := regexp.MustCompile(`^<h3>([^<]+)</h3><svg [^>]*role="img" aria-labelledby="([^" ]+) ([^"]+)"><title id="([^"]+)">[^<]+</title><desc id="([^"]+)">[^<]+</desc>`).FindStringSubmatch(chart)
	if m == nil || m[2] != m[4] || m[3] != m[5] {
		t.Errorf("chart %s: no heading, or its SVG no title and description named by aria-labelledby: %.300s", id, chart)
	}
}

// The overview begins with its tiles, then its charts, each under a
// heading of its own, then the tables; the sign-off and the close are
// panels of their own. The tiles say what the list and the API say: the
// money at risk per currency (gross of the open findings), the one
// number of open findings, the overdue (one assigned finding, reconciled
// ten days on), the unassigned and the new; the aging chart is
// /api/aging's, the rules chart the open findings per rule, and each
// chart of money at risk is of one currency, its newest point the tile's.
func TestTheOverviewsTilesAndCharts(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := assignedDueTomorrowTenDaysOn(t, fx, srv)
	page := do(t, srv, asUser("dana", call{path: "/"})).body

	open := findingsOf(t, srv, "erin", "status=open&waived=no")
	gross, rules, news := map[string]money.Amount{}, map[string]int{}, 0
	for _, x := range open {
		rules[x.Rule]++
		if x.Status == findings.StatusNew {
			news++
		}
		if a, err := money.Parse(x.Amount); err == nil && x.Currency != "" {
			gross[x.Currency] += a.Abs()
		}
	}
	var atRisk []string
	for _, c := range slices.Sorted(func(yield func(string) bool) {
		for c := range gross {
			if !yield(c) {
				return
			}
		}
	}) {
		atRisk = append(atRisk, c+" "+gross[c].Grouped())
	}
	header, _ := openOnOverview(t, page)
	want := map[string][]string{"tile-at-risk": atRisk, "tile-open": {strconv.Itoa(len(open))}, "tile-overdue": {"1"},
		"tile-unassigned": {strconv.Itoa(len(open) - 1)}, "tile-new": {strconv.Itoa(news)}}
	got := tileFigures(t, page)
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			t.Errorf("%s shows %q, want %q", id, got[id], w)
		}
	}
	if header != len(open) {
		t.Errorf("the header says %d open findings, the list %d", header, len(open))
	}

	checkAging(t, srv, page, len(open))
	chart := figureOf(page, "chart-rules")
	checkAccessible(t, "chart-rules", chart)
	if got := marks(chart, "rule"); fmt.Sprint(got) != fmt.Sprint(rules) {
		t.Errorf("the rules chart %v, the list's open findings per rule %v", got, rules)
	}
	for c, g := range gross {
		id := "chart-at-risk-" + c
		chart := figureOf(page, id)
		checkAccessible(t, id, chart)
		points := regexp.MustCompile(`data-gross="([^"]+)"><title>[^<]*: (\w+) `).FindAllStringSubmatch(chart, -1)
		if len(points) == 0 || points[len(points)-1][1] != g.String() {
			t.Errorf("%s: points %q, want the newest at %s", id, points, g)
		}
		for _, p := range points {
			if p[2] != c {
				t.Errorf("%s draws %s", id, p[2])
			}
		}
	}
	if !strings.Contains(figureOf(page, "chart-flux"), `id="flux-note"`) {
		t.Error("the overview of a whole snapshot says nothing of the flux review")
	}
	checkOrder(t, page, `id="tiles"`, `id="charts"`, `<h2>Totals</h2>`, `id="rules"`, `<h2>Sign-off</h2>`, `<h2>Close</h2>`)

	wv, _ := json.Marshal(map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "reason": "r", "owner": "erin", "expires": "2099-12-31"})
	if a := do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/waivers", body: string(wv)})); a.status != http.StatusCreated {
		t.Fatalf("waive: %d %s", a.status, a.body)
	}
	page = do(t, srv, asUser("dana", call{path: "/"})).body
	if got := tileFigures(t, page)["tile-open"]; !slices.Equal(got, []string{strconv.Itoa(len(open))}) {
		t.Errorf("after a waiver, as reconciled before it: tile-open %q, want %d", got, len(open))
	}
	checkAging(t, srv, page, len(open)-1)
}

// checkAging fails unless the aging chart of page is /api/aging's, its
// n findings all 8-30 days old.
func checkAging(t *testing.T, srv *httptest.Server, page string, n int) {
	t.Helper()
	var aging struct{ Buckets []agingBucket }
	if a := do(t, srv, asUser("dana", call{path: "/api/aging"})); a.status != http.StatusOK || json.Unmarshal([]byte(a.body), &aging) != nil {
		t.Fatalf("/api/aging: %d %s", a.status, a.body)
	}
	want := map[string]int{}
	for _, bk := range aging.Buckets {
		want[bk.Bucket] = bk.Count
	}
	chart := figureOf(page, "chart-aging")
	checkAccessible(t, "chart-aging", chart)
	if got := marks(chart, "bucket"); fmt.Sprint(got) != fmt.Sprint(want) || want["8-30"] != n {
		t.Errorf("the aging chart %v, /api/aging %v (want %d, all 8-30)", got, want, n)
	}
}

// checkOrder fails unless each of marks is in page, in their order.
func checkOrder(t *testing.T, page string, marks ...string) {
	t.Helper()
	at := -1
	for _, m := range marks {
		i := strings.Index(page, m)
		if i < 0 || i < at {
			t.Errorf("the overview has %s at %d, after the one before at %d (want %q in order)", m, i, at, marks)
			return
		}
		at = i
	}
}

// reconciledPeriod are the open, unwaived findings of period P's
// reconciliation of the latest snapshot, from the API.
func (fx *fixture) reconciledPeriod(t *testing.T, srv *httptest.Server, P string) []apiFindingOut {
	t.Helper()
	var open []apiFindingOut
	getJSON(t, srv, "/api/findings?status=open&waived=no&period="+P, &open)
	return open
}

// checkFluxCharts fails unless page draws each line of /api/flux of
// period P in its currency's chart, with its figures and whether it is
// over the threshold, and no other.
func checkFluxCharts(t *testing.T, srv *httptest.Server, page, P string) {
	t.Helper()
	var review struct {
		Lines []struct {
			Measure, Currency, Previous, Current string
			Over                                 bool `json:"over_threshold"`
		}
	}
	getJSON(t, srv, "/api/flux?period="+P, &review)
	if len(review.Lines) == 0 {
		t.Fatal("the fixture's month has no flux line")
	}
	for _, l := range review.Lines {
		chart := figureOf(page, "chart-flux-"+l.Currency)
		checkAccessible(t, "chart-flux-"+l.Currency, chart)
		mark := fmt.Sprintf(`data-measure="%s" data-currency="%s" data-over="%t" data-previous="%s" data-current="%s"`, l.Measure, l.Currency, l.Over, l.Previous, l.Current)
		if !strings.Contains(chart, mark) {
			t.Errorf("the flux chart of %s lacks %s", l.Currency, mark)
		}
	}
	if n := strings.Count(page, "<g data-measure="); n != len(review.Lines) {
		t.Errorf("the flux charts draw %d lines, the review has %d", n, len(review.Lines))
	}
}
