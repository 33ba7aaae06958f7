package workspace

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/reports"
)

// jsonLines is what `reconcile --format json` prints for rep, decoded.
func jsonLines(t *testing.T, rep *findings.Report) []map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := reports.JSONLines(&b, rep); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	dec := json.NewDecoder(&b)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func first(ms []map[string]any) map[string]any {
	if len(ms) == 0 {
		return nil
	}
	return ms[0]
}

// A waiver posted to the API is honoured by the next reconcile, with who
// made it; deleted, the reconcile after that no longer applies it.
func TestAPostedWaiverIsHonouredByTheNextReconcile(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	rep := fx.reconciled
	var target findings.Finding
	for _, f := range rep.Open() {
		if f.Rule == "paid_without_payment" && f.Waiver == nil {
			target = f
			break
		}
	}
	if target.EntityID == "" {
		t.Fatal("the fixture has no open paid_without_payment finding")
	}
	body, _ := json.Marshal(map[string]string{"rule": target.Rule, "entity_id": target.EntityID, "reason": "paid by cheque",
		"owner": "ann@finance", "expires": "2099-12-31", "by": "carol"})
	a := do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: string(body), contentType: "application/json"})
	if a.status != http.StatusCreated {
		t.Fatalf("POST /api/waivers: %d %s", a.status, a.body)
	}
	var made struct{ ID, By string }
	json.Unmarshal([]byte(a.body), &made)
	waived := func() map[string]any {
		t.Helper()
		for _, m := range jsonLines(t, fx.reconcile(t)) {
			if m["rule"] == target.Rule && m["entity_id"] == target.EntityID {
				return m
			}
		}
		t.Fatal("the finding is gone")
		return nil
	}
	m := waived()
	w, _ := m["waiver"].(map[string]any)
	if m["waived"] != true || w["id"] != made.ID || w["by"] != "carol" || w["owner"] != "ann@finance" {
		t.Fatalf("after the waiver: %v", m)
	}
	if a := do(t, srv, call{method: http.MethodDelete, path: "/api/waivers/" + made.ID + "?by=dave"}); a.status != http.StatusOK || !strings.Contains(a.body, `"lifted_by": "dave"`) {
		t.Fatalf("DELETE: %d %s", a.status, a.body)
	}
	if m := waived(); m["waived"] != false {
		t.Fatalf("after the lift: %v", m)
	}
	if a := do(t, srv, call{method: http.MethodDelete, path: "/api/waivers/W999"}); a.status != http.StatusNotFound {
		t.Fatalf("DELETE of no waiver: %d %s", a.status, a.body)
	}
	bad, _ := json.Marshal(map[string]string{"rule": "no_such_rule", "entity_id": "x", "reason": "r", "owner": "o", "expires": "2099-01-01"})
	if a := do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: string(bad), contentType: "application/json"}); a.status != http.StatusBadRequest {
		t.Fatalf("a waiver of no rule: %d %s", a.status, a.body)
	}
}

// withoutWork takes the work fields out of every object of /api/findings,
// failing when one lacks any.
func withoutWork(t *testing.T, objs []map[string]any) {
	t.Helper()
	for _, m := range objs {
		for _, k := range []string{"assignee", "due", "age_days", "overdue", "comments", "resolution_code"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("an object of /api/findings without %s: %v", k, m)
			}
			delete(m, k)
		}
	}
}
