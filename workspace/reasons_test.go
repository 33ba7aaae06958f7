package workspace

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/worklist"
)

// A waiver gives a reason code of the catalogue: the API records it (201,
// in the ledger), refuses a code the catalogue lacks (422, one line naming
// the codes), the waive form offers the catalogue, and once reconciled the
// code is the waiver's in /api/findings, in findings.csv beside the
// assignee and due date, and in the reports' waived money by reason code.
func TestAWaiverGivesAReasonCode(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := openOf(t, fx)
	waive := func(code string) answer {
		b, _ := json.Marshal(map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "reason": "settled by phone", "reason_code": code,
			"owner": "erin", "expires": "2099-12-31"})
		return do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/waivers", body: string(b)}))
	}
	a := waive("bogus")
	var e struct{ Error string }
	if a.status != http.StatusUnprocessableEntity || json.Unmarshal([]byte(a.body), &e) != nil ||
		!strings.HasPrefix(e.Error, `waiver: reason_code "bogus" is not in the catalogue (worklist.reasons): want one of timing, known_issue,`) || strings.Contains(e.Error, "\n") {
		t.Fatalf("an unknown code: %d %s", a.status, a.body)
	}
	if a := waive("customer_agreement"); a.status != http.StatusCreated || !strings.Contains(a.body, `"reason_code": "customer_agreement"`) {
		t.Fatalf("a waiver with a code: %d %s", a.status, a.body)
	}
	if e := ledgerEntries(t, fx); len(e) != 1 || e[0].Waiver.ReasonCode != "customer_agreement" {
		t.Fatalf("the ledger: %+v", e)
	}
	form := do(t, srv, asUser("erin", call{path: "/waive?" + url.Values{"rule": {f.Rule}}.Encode()}))
	if !strings.Contains(form.body, `<select name="reason_code" required>`) || !strings.Contains(form.body, `<option value="credit_note">Settled by a credit note or refund (credit_note)</option>`) {
		t.Fatalf("the waive form offers no catalogue:\n%s", form.body)
	}
	due := "2099-01-31"
	b, _ := json.Marshal(map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "assignee": "dana", "due": due})
	if a := do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/assignments", body: string(b)})); a.status != http.StatusCreated {
		t.Fatalf("assign: %d %s", a.status, a.body)
	}
	in := fx.report(t)
	var totals []string
	for _, r := range in.WaivedByReason() {
		totals = append(totals, r.Code)
	}
	if strings.Join(totals, ",") != "customer_agreement" {
		t.Fatalf("the reports' waived money by reason code: %v", totals)
	}
	var api []struct {
		Rule, EntityID string
		Waiver         *struct {
			ReasonCode string `json:"reason_code"`
		}
	}
	if a := do(t, srv, asUser("erin", call{path: "/api/findings?waived=yes"})); json.Unmarshal([]byte(a.body), &api) != nil || len(api) != 1 || api[0].Waiver.ReasonCode != "customer_agreement" {
		t.Fatalf("/api/findings?waived=yes: %s", a.body)
	}
	file := do(t, srv, asUser("erin", call{path: "/findings.csv?waived=yes"}))
	rows, err := csv.NewReader(strings.NewReader(file.body)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("findings.csv: %v %q", err, file.body)
	}
	got := map[string]string{}
	for i, col := range rows[0] {
		got[col] = rows[1][i]
	}
	if got["waiver_reason_code"] != "customer_agreement" || got["assignee"] != "dana" || got["due"] != due || got["overdue"] != "false" {
		t.Fatalf("findings.csv's work: %v", got)
	}
}

// A configured catalogue replaces the default: the form offers its codes,
// and a code of the default it does not have is refused.
func TestAConfiguredCatalogueOfReasons(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serveWith(t, func(o *Options) {
		o.Worklist = worklist.Default()
		o.Worklist.Reasons = []worklist.Reason{{Code: "fx_rate", Label: "Exchange rate difference"}}
	})
	f := openOf(t, fx)
	form := do(t, srv, call{path: "/waive"})
	if !strings.Contains(form.body, `<option value="fx_rate">`) || strings.Contains(form.body, `value="timing"`) {
		t.Fatalf("the waive form's catalogue:\n%s", form.body)
	}
	b, _ := json.Marshal(map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "reason": "r", "reason_code": "timing", "owner": "o", "expires": "2099-12-31", "by": "carol"})
	if a := do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: string(b), contentType: "application/json"}); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "want one of fx_rate") {
		t.Fatalf("a code of the default catalogue: %d %s", a.status, a.body)
	}
}

// A resolution records how a finding was resolved: a reason code of the
// catalogue and a note (201), by one who may waive; it changes no status,
// stands latest-first in /api/resolutions and as the finding's
// resolution_code in /api/findings, shows on the record page with its
// form, whose post records one too; an unknown code, rule or record is
// 422, a missing code 400, one without the role 403.
func TestAFindingsResolutionGivesAReasonCode(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := openOf(t, fx)
	post := func(user, rule, id, code string) answer {
		b, _ := json.Marshal(map[string]string{"rule": rule, "entity_id": id, "reason_code": code, "note": "invoiced in the next run"})
		return do(t, srv, asUser(user, call{method: http.MethodPost, path: "/api/resolutions", body: string(b)}))
	}
	for _, c := range []struct {
		user, rule, id, code string
		status               int
	}{{"erin", f.Rule, f.EntityID, "bogus", 422}, {"erin", "no_rule", f.EntityID, "timing", 422}, {"erin", f.Rule, "no-record", "timing", 422},
		{"erin", f.Rule, f.EntityID, "", 400}, {"dana", f.Rule, f.EntityID, "timing", 403}} {
		if a := post(c.user, c.rule, c.id, c.code); a.status != c.status || strings.Contains(strings.TrimSpace(a.body), "\n\n") {
			t.Errorf("%+v: %d %s", c, a.status, a.body)
		}
	}
	if a := post("erin", f.Rule, f.EntityID, "corrected_at_source"); a.status != http.StatusCreated || !strings.Contains(a.body, `"reason_code": "corrected_at_source"`) {
		t.Fatalf("a resolution: %d %s", a.status, a.body)
	}
	for _, x := range findingsOf(t, srv, "erin", "") {
		if x.Rule == f.Rule && x.EntityID == f.EntityID && (x.ResolutionCode == nil || *x.ResolutionCode != "corrected_at_source" || x.Status == "resolved") {
			t.Fatalf("the finding resolved: %+v", x)
		}
	}
	page := "/entities/" + f.Entity + "/" + url.PathEscape(f.EntityID)
	rec := do(t, srv, asUser("erin", call{path: page}))
	if !strings.Contains(rec.body, `Resolution: <strong class="code">corrected_at_source</strong> — invoiced in the next run`) || !strings.Contains(rec.body, `class="box resolution-form"`) {
		t.Fatalf("the record page shows no resolution")
	}
	if a := formAs(t, srv, "erin", "/resolutions", url.Values{"rule": {f.Rule}, "entity_id": {f.EntityID}, "reason_code": {"credit_note"}, "back": {page}}); a.status != http.StatusSeeOther {
		t.Fatalf("the form's post: %d %s", a.status, a.body)
	}
	var standing []struct {
		ReasonCode string `json:"reason_code"`
		By         string
	}
	if a := do(t, srv, asUser("dana", call{path: "/api/resolutions"})); json.Unmarshal([]byte(a.body), &standing) != nil || len(standing) != 1 || standing[0].ReasonCode != "credit_note" || standing[0].By != "erin" {
		t.Fatalf("/api/resolutions: %s", a.body)
	}
	if e := ledgerEntries(t, fx); len(e) != 2 || e[1].Action != "resolve" || e[1].Auth != "tokens" {
		t.Fatalf("the ledger: %+v", e)
	}
}
