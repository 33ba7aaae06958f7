//go:build heavy

package fix

import (
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/reports"
)

// After one flagged charge is changed through the service's own API,
// recheck exits 3 (the other findings are still material) and --format
// json prints a line a finding, that one changed; the findings carry it
// as live in reconcile's JSON after. Each class of a recheck, finding by
// finding, is recheck's own test (TestRecheckClassesEachFinding).
func TestRecheckSeesAChargeChangedThroughTheAPI(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Reconciled(t, e2etest.ExportedOptions)
	target := reports.FindingJSON{Rule: "missed_billing_run"}
	for _, e := range srv.Dataset().Expected {
		if e.Rule == target.Rule {
			target.EntityID = e.EntityID
		}
	}
	if target.EntityID == "" {
		t.Fatal("no missed_billing_run planted")
	}
	setQuantity(t, srv, referenceOf(t, srv, target.EntityID), 0)
	code, out, stderr := e2etest.CLI(t, srv, "recheck", "--out", dir, "--format", "json")
	if code != job.ExitMaterial {
		t.Errorf("recheck: exit %d, want 3 (the other findings are still material)\n%s", code, stderr)
	}
	lines := decodeLines[map[string]string](t, out) // recheck --format json's lines
	changed := 0
	for _, l := range lines {
		if l["rule"] == target.Rule && l["entity_id"] == target.EntityID {
			changed++
			if l["live"] != "changed" || !strings.Contains(l["detail"], "Amount ") {
				t.Errorf("the changed finding: %s, detail %q", l["live"], l["detail"])
			}
		}
		if l["live"] == "" || l["checked_at"] == "" {
			t.Errorf("%s %s: %q at %q", l["rule"], l["entity_id"], l["live"], l["checked_at"])
		}
	}
	if changed != 1 || len(lines) < 2 {
		t.Errorf("%d lines, %d of them the finding changed", len(lines), changed)
	}
	_, out, _ = e2etest.CLI(t, srv, "reconcile", "--out", dir, "--format", "json")
	for _, f := range decodeLines[reports.FindingJSON](t, out) {
		if f.Rule == target.Rule && f.EntityID == target.EntityID && (f.Live != "changed" || f.CheckedAt == "") {
			t.Errorf("reconcile's JSON after the recheck: %+v", f)
		}
	}
}
