package workspace

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/layout"
)

// waiverBody is the API's body of a waiver of rule and entityID.
func waiverBody(rule, entityID string) string {
	b, _ := json.Marshal(map[string]string{"rule": rule, "entity_id": entityID, "reason": "credit note", "owner": "ann",
		"expires": "2099-12-31", "by": "carol"})
	return string(b)
}

// rowOf is the findings list's row of record id in body, "" without one.
func rowOf(body, id string) string {
	for row := range strings.SplitSeq(body, "</tr>") {
		if strings.Contains(row, ` data-entity="`+html.EscapeString(id)+`"`) {
			return row
		}
	}
	return ""
}

// What finance does shows as it does it: a waiver marks its finding
// waived at once in the list, on the record and in the overview (pending
// the next reconcile for the totals, said so), and Waive is not offered
// for it again; a waiver that names no finding of the store is refused,
// 422 with one line, from the API and the form.
func TestAWaiverShowsAtOnceAndNamesAFinding(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	var target findings.Finding
	for _, f := range fx.reconciled.Open() {
		if f.Rule == "paid_without_payment" && f.Waiver == nil {
			target = f
			break
		}
	}
	if target.EntityID == "" {
		t.Fatal("the fixture has no open paid_without_payment finding")
	}
	list := "/findings?rule=" + target.Rule
	if row := rowOf(do(t, srv, call{path: list}).body, target.EntityID); !strings.Contains(row, "/waive?") {
		t.Fatalf("before the waiver, the row offers no Waive: %s", row)
	}
	if a := do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: waiverBody(target.Rule, target.EntityID),
		contentType: "application/json"}); a.status != http.StatusCreated {
		t.Fatalf("POST /api/waivers: %d %s", a.status, a.body)
	}
	page := do(t, srv, call{path: list}).body
	row := rowOf(page, target.EntityID)
	if strings.Contains(row, "/waive?") || !strings.Contains(row, "pending the next reconcile") || !strings.Contains(row, "credit note") {
		t.Errorf("the list after the waiver: %s", row)
	}
	if !strings.Contains(page, `id="pending"`) {
		t.Error("the list does not say the totals wait for the next reconcile")
	}
	form := do(t, srv, call{path: "/waive?" + url.Values{"rule": {target.Rule}, "entity_id": {target.EntityID}}.Encode()}).body
	if !strings.Contains(form, `id="waived-already"`) || strings.Contains(form, `id="waive-form"`) {
		t.Errorf("the waive form of a finding waived already offers to waive it again")
	}
	record := do(t, srv, call{path: "/entities/" + target.Entity + "/" + url.PathEscape(target.EntityID)}).body
	if !strings.Contains(record, "yes, pending the next reconcile") {
		t.Errorf("the record page does not mark the finding waived")
	}
	overview := do(t, srv, call{path: "/"}).body
	if !regexp.MustCompile(`class="pending">\+1 pending<`).MatchString(overview) || !strings.Contains(overview, "1 open finding waived since this reconciliation") {
		t.Errorf("the overview does not count the waiver made since: %s", overview)
	}

	ledgerPath := layout.Dir(fx.cfg.Out).Ledger()
	before, _ := os.ReadFile(ledgerPath)
	a := do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: waiverBody(target.Rule, "no-such-record"), contentType: "application/json"})
	if a.status != http.StatusUnprocessableEntity || strings.Count(strings.TrimSpace(a.body), "\n") != 2 || !strings.Contains(a.body, "no-such-record") {
		t.Errorf("an API waiver that names no finding: %d %s", a.status, a.body)
	}
	posted := url.Values{"csrf": {csrfOf(t, srv)}, "rule": {"charge_not_invoiced"}, "entity_id": {target.EntityID}, "reason": {"r"},
		"owner": {"o"}, "expires": {"2099-01-01"}, "by": {"carol"}, "back": {"/"}}
	a = do(t, srv, call{method: http.MethodPost, path: "/waivers", body: posted.Encode(), contentType: "application/x-www-form-urlencoded"})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "names record") {
		t.Errorf("a form waiver of another rule's record: %d %s", a.status, a.body)
	}
	if after, _ := os.ReadFile(ledgerPath); string(after) != string(before) {
		t.Error("a refused waiver reached the ledger")
	}
}

// overviewLine is the overview's cells of rule in currency, after the
// currency: open, new, waived, resolved, net, gross.
func overviewLine(t *testing.T, overview, rule, currency string) []string {
	t.Helper()
	cell := regexp.MustCompile(`<td class="num">(.*?)</td>`)
	for seg := range strings.SplitSeq(overview, `<tr class="rule-row" data-rule="`) {
		if !strings.HasPrefix(seg, rule+`"`) {
			continue
		}
		if _, after, ok := strings.Cut(seg, "<td>"+currency+"</td>"); ok {
			var out []string
			for _, m := range cell.FindAllStringSubmatch(strings.Split(after, "</tr>")[0], -1) {
				out = append(out, m[1])
			}
			return out
		}
	}
	t.Fatalf("the overview has no line of %s in %q", rule, currency)
	return nil
}

// A finding with no money shows "—", not 0.00, in the list and on the
// overview, whose totals say so; the overview's Open counts the findings
// neither resolved nor waived.
func TestFindingsWithoutMoneyShowADash(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	var none, money findings.Finding
	for _, f := range fx.reconciled.Open() {
		switch {
		case f.Amount == 0 && (f.Rule == "multiple_active_charges" || f.Rule == "currency_mismatch"):
			none = f
		case f.Rule == "paid_without_payment" && f.Waiver == nil:
			money = f
		}
	}
	if none.EntityID == "" || money.EntityID == "" {
		t.Fatal("the fixture has no finding without money, or no paid_without_payment")
	}
	row := rowOf(do(t, srv, call{path: "/findings?rule=" + none.Rule}).body, none.EntityID)
	if !strings.Contains(row, `<td class="num">—</td>`) || strings.Contains(row, "0.00") {
		t.Errorf("the list's row of a finding without money: %s", row)
	}
	overview := do(t, srv, call{path: "/"}).body
	if l := overviewLine(t, overview, none.Rule, none.Currency); l[4] != "—" || l[5] != "—" {
		t.Errorf("the overview's line of %s: %v", none.Rule, l)
	}
	if !strings.Contains(overview, "—: no amount, the findings carry no money") {
		t.Error("the totals do not say what — means")
	}
	before := overviewLine(t, overview, money.Rule, money.Currency)
	if a := do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: waiverBody(money.Rule, money.EntityID),
		contentType: "application/json"}); a.status != http.StatusCreated {
		t.Fatalf("POST /api/waivers: %d %s", a.status, a.body)
	}
	fx.reconcile(t)
	after := overviewLine(t, do(t, srv, call{path: "/"}).body, money.Rule, money.Currency)
	if before[0] == "0" || after[2] != "1" || after[0] != fmt.Sprint(mustAtoi(t, before[0])-1) {
		t.Errorf("open, new, waived of %s before the waiver %v, after it %v", money.Rule, before, after)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
