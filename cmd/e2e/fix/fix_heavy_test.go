//go:build heavy

package fix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/fix"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
)

// The whole loop against the sandbox: the plan proposes one markpaid per
// eligible invoice and none for the others; --amounts adds a setamount
// (checkAmounts); a dry run sends nothing; apply, through a connection
// that drops the second write's answer (checkReadBack), then export and
// reconcile, resolves those findings; a second apply sends nothing.
func TestFixPlanAndApply(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Reconciled(t, e2etest.ExportedOptions)
	code, out, stderr := e2etest.CLI(t, srv, "fix", "plan", "--out", dir)
	if code != job.ExitOK {
		t.Fatalf("fix plan: %d %s", code, stderr)
	}
	var p fix.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	want := eligible(srv)
	got := map[string]string{}
	for _, a := range p.Actions {
		if a.Op != fix.OpMarkPaid || a.Finding.Rule != "payment_without_invoice" || a.Finding.EntityID == "" {
			t.Errorf("action %+v", a)
		}
		got[a.InvoiceID] = a.PaymentDate
	}
	if len(want) < 2 || len(got) != len(want) {
		t.Fatalf("the plan's markpaids %v, want %v", got, want)
	}
	for id, date := range want {
		if got[id] != date {
			t.Errorf("invoice %s: payment_date %q, want %q", id, got[id], date)
		}
	}
	planFile, out0 := filepath.Join(dir, "plan.json"), out
	os.WriteFile(planFile, []byte(out), 0o644)
	checkAmounts(t, srv, dir)

	before := srv.Requests()
	code, out, stderr = e2etest.CLI(t, srv, "fix", "apply", "--out", dir, "--plan", planFile, "--dry-run")
	if code != job.ExitOK || srv.Requests() != before || strings.Count(out, "PUT ") != len(want) {
		t.Fatalf("dry run: exit %d, %d requests sent\n%s%s", code, srv.Requests()-before, out, stderr)
	}
	proxy := &writeProxy{target: srv.URL, drop: 2}
	via := &sandbox.Server{Sandbox: srv.Sandbox, URL: newProxyServer(t, proxy)}
	code, out, stderr = e2etest.CLI(t, via, "fix", "apply", "--out", dir, "--plan", planFile)
	if code != job.ExitOK || !strings.Contains(out, "writes sent") {
		t.Fatalf("apply through a connection that drops an answer: exit %d\n%s%s", code, out, stderr)
	}
	checkReadBack(t, proxy, dir, len(p.Actions))
	checkResolved(t, srv, dir, p)
	if code, _, stderr := e2etest.CLI(t, srv, "fix", "apply", "--out", dir, "--plan", planFile); code != job.ExitUsage || !strings.Contains(stderr, "and the latest is") {
		t.Errorf("a plan of an older snapshot: exit %d, %s", code, stderr)
	}
	tampered := filepath.Join(dir, "tampered.json")
	os.WriteFile(tampered, []byte(strings.Replace(out0, p.Actions[0].PaymentDate, "2020-01-01T00:00:00Z", 1)), 0o644)
	if code, _, stderr := e2etest.CLI(t, srv, "fix", "apply", "--out", dir, "--plan", tampered); code != job.ExitUsage || !strings.Contains(stderr, "it was changed after it was made") {
		t.Errorf("a plan changed after it was made: exit %d, %s", code, stderr)
	}
	code, out, stderr = e2etest.CLI(t, srv, "fix", "apply", "--out", dir, "--plan", planFile, "--force")
	if code != job.ExitOK || !strings.Contains(out, "; 0 writes sent") {
		t.Fatalf("a second apply: exit %d\n%s%s", code, out, stderr)
	}
}
