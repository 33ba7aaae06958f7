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
