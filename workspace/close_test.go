package workspace

import (
	"encoding/json"
	"maps"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/evidence"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/workspace/guard/guardtest"
)

// tokensFile writes a tokens file of users and gives its path.
func tokensFile(t *testing.T, users map[string]string) string { return guardtest.TokensFile(t, users) }

// closeUsers are a controller who signs off and closes, and a clerk who
// waives.
var closeUsers = map[string]string{"dana": "dana-token-0123456789", "erin": "erin-token-0123456789"}

func closeAccess(t *testing.T) *access.Control {
	return control(t, access.Config{Identity: access.Tokens, TokensFile: tokensFile(t, closeUsers),
		Roles: access.Roles{Waive: []string{"erin", "dana"}, SignOff: []string{"dana"}, Close: []string{"dana"}}})
}

// as sends c with the bearer token of user.
func as(user string, c call) call {
	c.header = map[string]string{"Authorization": "Bearer " + closeUsers[user]}
	if c.body != "" {
		c.contentType = "application/json"
	}
	return c
}

func periodState(t *testing.T, do func(call) answer, period string) apiPeriodState {
	t.Helper()
	a := do(as("dana", call{path: "/api/periods/" + period}))
	var st apiPeriodState
	if a.status != http.StatusOK || json.Unmarshal([]byte(a.body), &st) != nil {
		t.Fatalf("GET /api/periods/%s: %d %s", period, a.status, a.body)
	}
	return st
}

// A closed period keeps its figures: a waiver of one of its findings and a
// reconciliation after it do not move the closed totals, and are listed
// as post-close adjustments, with who made them; the closed record's files
// are those the ledger's close hashes; a reopen needs a reason and the
// close role.
func TestAClosedPeriodStaysClosed(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p, _ := findings.ParsePeriod(time.Now().UTC().AddDate(0, -1, 0).Format("2006-01"))
	rep := fx.reconcilePeriod(t, p)
	srv := fx.serveWith(t, func(o *Options) { o.Access = closeAccess(t) })
	send := func(c call) answer { return do(t, srv, c) }
	P := p.String()

	if a := send(as("dana", call{method: http.MethodPost, path: "/api/periods/" + P + "/close", body: `{"comment": "October"}`})); a.status != http.StatusConflict || !strings.Contains(a.body, "sign it off") {
		t.Fatalf("a close before any sign-off: %d %s", a.status, a.body)
	}
	explainFlux(t, send, P, "erin")
	if a := send(as("dana", call{method: http.MethodPost, path: "/api/signoffs", body: `{"period": "` + P + `", "role": "controller"}`})); a.status != http.StatusCreated {
		t.Fatalf("sign-off: %d %s", a.status, a.body)
	}
	if a := send(as("erin", call{method: http.MethodPost, path: "/api/periods/" + P + "/close", body: `{}`})); a.status != http.StatusForbidden {
		t.Fatalf("erin's close: %d %s", a.status, a.body)
	}
	a := send(as("dana", call{method: http.MethodPost, path: "/api/periods/" + P + "/close", body: `{"comment": "month end"}`}))
	var closed apiClose
	if a.status != http.StatusCreated || json.Unmarshal([]byte(a.body), &closed) != nil || closed.By != "dana" || len(closed.Files) != 8+len(fx.rules(t)) {
		t.Fatalf("close: %d %s", a.status, a.body)
	}
	for _, f := range closed.Files {
		sum, _, err := evidence.HashFile(filepath.Join(fx.cfg.Out, f.Path))
		if err != nil || sum != f.SHA256 {
			t.Fatalf("closed record %s: %s, %v; the ledger says %s", f.Path, sum, err, f.SHA256)
		}
	}
	checkClosedFlux(t, fx.cfg.Out, closed.Files, P)

	// A waiver of a closed finding, then the reconciliation that applies it.
	var target reports.FindingJSON
	for _, f := range rep.Findings {
		if f.Status != "resolved" && f.Waiver == nil && f.Amount != 0 {
			target = reports.FindingJSON{Rule: f.Rule, EntityID: f.EntityID}
			break
		}
	}
	if target.Rule == "" {
		t.Fatalf("period %s has no open finding with an amount to waive: %d findings", P, len(rep.Findings))
	}
	body := `{"rule": "` + target.Rule + `", "entity_id": "` + target.EntityID + `", "reason": "credit note", "owner": "erin", "expires": "2099-12-31", "by": "someone else"}`
	if a := send(as("erin", call{method: http.MethodPost, path: "/api/waivers", body: body})); a.status != http.StatusCreated {
		t.Fatalf("waiver after the close: %d %s", a.status, a.body)
	}
	in := fx.reportPeriod(t, p)
	lines := strings.Join(in.CloseLines(), "\n")
	if flux := strings.Join(in.FluxLines(), "\n"); in.Flux == nil || in.Flux.Period != P || !strings.Contains(flux, "explained by erin") {
		t.Errorf("billsnap report --period %s gives the flux review as:\n%s", P, flux)
	}
	for cur, tot := range closed.Totals {
		if !strings.Contains(lines, cur+" net "+tot.Net+", gross "+tot.Gross) && !strings.Contains(lines, "net "+tot.Net+", gross "+tot.Gross) {
			t.Errorf("the report's close lines lack the closed %s totals %+v:\n%s", cur, tot, lines)
		}
	}
	if !strings.Contains(lines, "not the ones closed") || !strings.Contains(lines, "Post-close adjustment") || !strings.Contains(lines, "by erin: waived") {
		t.Errorf("the report of the closed period:\n%s", lines)
	}

	st := periodState(t, send, P)
	if !st.Closed || st.Close.ID != closed.ID || !maps.Equal(st.Close.Totals, closed.Totals) {
		t.Fatalf("after the waiver: %+v; closed with %+v", st.Close, closed.Totals)
	}
	if len(st.Adjustments) != 1 || st.Adjustments[0].By != "erin" || st.Adjustments[0].Action != ledger.ActWaive || len(st.Later) != 1 {
		t.Fatalf("adjustments %+v, reconciled after %+v", st.Adjustments, st.Later)
	}
	page := send(as("dana", call{path: "/?snapshot=" + closed.Snapshot + "&period=" + P}))
	if !strings.Contains(page.body, `id="closed-totals"`) || !strings.Contains(page.body, `class="adjustment"`) || !strings.Contains(page.body, "erin") {
		t.Fatalf("the overview of the closed period:\n%s", page.body)
	}
	if a := send(as("dana", call{method: http.MethodPost, path: "/api/periods/" + P + "/reopen", body: `{"reason": " "}`})); a.status != http.StatusBadRequest {
		t.Fatalf("a reopen without a reason: %d %s", a.status, a.body)
	}
	if a := send(as("erin", call{method: http.MethodPost, path: "/api/periods/" + P + "/reopen", body: `{"reason": "late credit"}`})); a.status != http.StatusForbidden {
		t.Fatalf("erin's reopen: %d %s", a.status, a.body)
	}
	if a := send(as("dana", call{method: http.MethodPost, path: "/api/periods/" + P + "/reopen", body: `{"reason": "late credit"}`})); a.status != http.StatusOK {
		t.Fatalf("reopen: %d %s", a.status, a.body)
	}
	if st := periodState(t, send, P); st.Closed || len(st.Reopened) != 1 || st.Reopened[0].By != "dana" {
		t.Fatalf("after the reopen: %+v", st)
	}
	if _, err := ledgerOf(fx).Verify(); err != nil {
		t.Fatal(err)
	}
}

// rules are the rules the fixture's workspace runs.
func (fx *fixture) rules(t *testing.T) []findings.Rule {
	t.Helper()
	opts, err := job.ReconcileOptions(fx.cfg, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return opts.Rules
}

// Two closes sent at once close once: both answer the one close, whose
// closed record's files are those its entry hashes, and the record of the
// close that came second is not left behind.
func TestTwoClosesAtOnceCloseOnce(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p, _ := findings.ParsePeriod(time.Now().UTC().AddDate(0, -1, 0).Format("2006-01"))
	fx.reconcilePeriod(t, p)
	srv := fx.serveWith(t, func(o *Options) { o.Access = closeAccess(t) })
	explainFlux(t, func(c call) answer { return do(t, srv, c) }, p.String(), "erin")
	if a := do(t, srv, as("dana", call{method: http.MethodPost, path: "/api/signoffs", body: `{"period": "` + p.String() + `", "role": "controller"}`})); a.status != http.StatusCreated {
		t.Fatalf("sign-off: %d %s", a.status, a.body)
	}
	answers := make(chan answer, 2)
	for range 2 {
		go func() {
			answers <- do(t, srv, as("dana", call{method: http.MethodPost, path: "/api/periods/" + p.String() + "/close", body: `{}`}))
		}()
	}
	ids := map[string]bool{}
	for range 2 {
		a := <-answers
		var c apiClose
		if a.status == http.StatusCreated && json.Unmarshal([]byte(a.body), &c) == nil {
			ids[c.ID] = true
		} else if a.status != http.StatusConflict {
			t.Fatalf("a close: %d %s", a.status, a.body)
		}
	}
	st := ledger.Fold(ledgerEntries(t, fx))
	dirs, _ := filepath.Glob(filepath.Join(fx.cfg.Out, ".billsnap", "closes", p.String(), "*"))
	if len(st.Closes) != 1 || len(ids) != 1 || !ids[st.Closes[0].ID] || len(dirs) != 1 {
		t.Fatalf("%d closes, answered %v, record directories %v", len(st.Closes), ids, dirs)
	}
	for _, f := range st.Closes[0].Files {
		if sum, _, err := evidence.HashFile(filepath.Join(fx.cfg.Out, f.Path)); err != nil || sum != f.SHA256 {
			t.Fatalf("%s: %s, %v; the close recorded %s", f.Path, sum, err, f.SHA256)
		}
	}
}
