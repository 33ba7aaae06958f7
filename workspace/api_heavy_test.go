//go:build heavy

package workspace

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// /api/findings?snapshot=latest is, object for object and in order, what
// `reconcile --format json` prints for the same snapshot, with the work of
// each besides (assignee, due, age_days, overdue, comments, resolution_code); a rule narrows it to
// that rule's.
func TestAPIFindingsAreTheReconcileJSON(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	rep := fx.reconcile(t) // as `billsnap reconcile --format json` would, again
	want := jsonLines(t, rep)
	var got []map[string]any
	getJSON(t, srv, "/api/findings?snapshot=latest", &got)
	withoutWork(t, got)
	if len(want) < 10 || !reflect.DeepEqual(got, want) {
		t.Fatalf("/api/findings: %d objects, reconcile --format json %d\nfirst got  %v\nfirst want %v", len(got), len(want), first(got), first(want))
	}
	var byID []map[string]any
	getJSON(t, srv, "/api/findings?snapshot="+rep.Snapshot.ID+"&rule=paid_without_payment", &byID)
	withoutWork(t, byID)
	var wantRule []map[string]any
	for _, m := range want {
		if m["rule"] == "paid_without_payment" {
			wantRule = append(wantRule, m)
		}
	}
	if len(wantRule) == 0 || !reflect.DeepEqual(byID, wantRule) {
		t.Fatalf("rule=paid_without_payment: %d objects, want %d", len(byID), len(wantRule))
	}
	if a := do(t, srv, call{path: "/api/findings?snapshot=1999-01-01T000000Z"}); a.status != http.StatusNotFound || !strings.Contains(a.body, "newest") {
		t.Fatalf("an unknown snapshot: %d %s", a.status, a.body)
	}
	if a := do(t, srv, call{path: "/api/findings?status=bogus"}); a.status != http.StatusBadRequest {
		t.Fatalf("a bad status: %d %s", a.status, a.body)
	}
}
