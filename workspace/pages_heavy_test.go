//go:build heavy

package workspace

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/workspace/record"
)

// A record opens by ID with its typed columns and raw JSON, its links both
// ways, its findings over history, and a diff between two snapshots that
// shows what changed.
func TestDrillDown(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	rep := fx.reconciled
	var inv findings.Finding
	for _, f := range rep.Open() {
		if f.Entity == "invoice" && f.Rule == "paid_without_payment" {
			inv = f
			break
		}
	}
	if inv.EntityID == "" {
		t.Fatal("no invoice finding")
	}
	var v record.View
	getJSON(t, srv, "/api/entities/invoice/"+inv.EntityID, &v)
	if v.Table != "invoices" || len(v.Raw) == 0 || !hasLink(v.Parents, "customer", "") || !hasLink(v.Children, "invoice_line", "") ||
		len(v.Findings) == 0 || v.Findings[0].Rule == "" {
		t.Fatalf("the invoice: %+v", v)
	}
	var customer string
	for _, l := range v.Parents {
		if l.Kind == "customer" {
			customer = l.ID
		}
	}
	var c record.View
	getJSON(t, srv, "/api/entities/customers/"+customer, &c)
	if !hasLink(c.Children, "invoice", inv.EntityID) {
		t.Fatalf("the customer %s does not lead back to invoice %s: %+v", customer, inv.EntityID, c.Children)
	}
	first := rep.Snapshot.ID
	var paid json.RawMessage
	target := unpaidInvoice(t, fx)
	sandboxCall(t, fx.sb, http.MethodPut, "/v3/invoices/"+target+"/markpaid/", map[string]string{"PaymentDate": time.Now().UTC().Format(time.RFC3339)}, http.StatusOK, &paid)
	fx.export(t)
	fx.reconcile(t)
	checkTwoToCompare(t, fx, srv)
	var snaps []apiSnapshot
	getJSON(t, srv, "/api/snapshots", &snaps)
	second := snaps[0].ID
	if len(snaps) != 2 || snaps[1].ID != first || len(snaps[1].Reconciliations) != 1 {
		t.Fatalf("snapshots %+v", snaps)
	}
	if n, _, _ := listed(t, do(t, srv, call{path: "/findings?snapshot=" + first}).body); n != len(rep.Findings) {
		t.Errorf("the list of the first snapshot: %d findings, its reconciliation %d", n, len(rep.Findings))
	}
	getJSON(t, srv, "/api/entities/invoice/"+target+"?a="+first+"&b="+second, &v)
	changed := map[string]bool{}
	for _, r := range v.Diff.Rows {
		if r.Changed {
			changed[r.Name] = true
		}
	}
	if len(v.In) != 2 || !changed["PaymentDate"] || len(changed) != 1 {
		t.Fatalf("the diff of invoice %s between %s and %s: %v (in %v)", target, first, second, changed, v.In)
	}
	page := do(t, srv, call{path: "/entities/invoice/" + target + "?a=" + first + "&b=" + second}).body
	if !strings.Contains(page, `<tr class="changed"><th>PaymentDate</th>`) {
		t.Fatalf("the record's page shows no changed PaymentDate:\n%s", page)
	}
	if a := do(t, srv, call{path: "/api/entities/invoice/nope"}); a.status != http.StatusNotFound {
		t.Errorf("no such invoice: %d", a.status)
	}
	if a := do(t, srv, call{path: "/api/entities/spaceship/x"}); a.status != http.StatusNotFound {
		t.Errorf("no such kind: %d", a.status)
	}
}

// While an export runs and publishes, every page and API read answers; a
// snapshot published but not yet reconciled leaves the pages on the newest
// reconciled one, saying so, while the API's latest names it.
func TestTheWorkspaceAnswersDuringAnExport(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	done := make(chan struct{})
	go func() {
		defer close(done)
		fx.export(t)
	}()
	answered := 0
	for running := true; running; answered++ {
		select {
		case <-done:
			running = false
		default:
		}
		for _, p := range []string{"/", "/findings", "/api/findings?snapshot=" + fx.first(t)} {
			if a := do(t, srv, call{path: p}); a.status != http.StatusOK {
				t.Fatalf("GET %s during the export: %d %s", p, a.status, a.body)
			}
		}
	}
	page := do(t, srv, call{path: "/"}).body
	if !strings.Contains(page, `id="note">The latest snapshot, `) || !strings.Contains(page, "Snapshot "+fx.first(t)) {
		t.Fatalf("the overview after an export not yet reconciled (first %s):\n%s", fx.first(t), section(page, "Totals"))
	}
	if a := do(t, srv, call{path: "/api/findings?snapshot=latest"}); a.status != http.StatusNotFound || !strings.Contains(a.body, "has not been reconciled") {
		t.Fatalf("the API's latest before the reconcile: %d %s", a.status, a.body)
	}
	t.Logf("%d rounds of reads during the export", answered)
}

// A sign-off records the reconciliation's digest and totals, shows on the
// overview, and the overview says so when the findings change after it.
func TestASignOffAndAChangeAfterIt(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	rep := fx.reconciled
	a := do(t, srv, call{method: http.MethodPost, path: "/api/signoffs", contentType: "application/json",
		body: `{"name":"Dana Controller","role":"controller","comment":"November closed"}`})
	if a.status != http.StatusCreated {
		t.Fatalf("POST /api/signoffs: %d %s", a.status, a.body)
	}
	var so struct {
		Digest   string
		Findings int
		Snapshot string `json:"snapshot_id"`
		Totals   map[string]struct{ Net, Gross string }
	}
	json.Unmarshal([]byte(a.body), &so)
	d, _ := rep.Digest()
	n := rep.OpenCount()
	totals := rep.CurrencyTotals()
	if so.Digest != d || so.Findings != n || so.Snapshot != rep.Snapshot.ID || len(so.Totals) != len(totals) {
		t.Fatalf("the sign-off %+v; the reconciliation's digest %s of %d findings, totals %v", so, d, n, totals)
	}
	for c, tot := range totals {
		if so.Totals[c].Net != tot.Net.String() || so.Totals[c].Gross != tot.Gross.String() {
			t.Errorf("%s: signed %+v, reconciled %+v", c, so.Totals[c], tot)
		}
	}
	if lines := fx.report(t).SignOffLines(); len(lines) != 1 || !lines[0].Matches || lines[0].Name != "Dana Controller" {
		t.Fatalf("the report's sign-offs: %+v", lines)
	}
	page := do(t, srv, call{path: "/"}).body
	if !strings.Contains(page, "Signed off by <strong>Dana Controller</strong>") || strings.Contains(page, "changed since this sign-off") {
		t.Fatalf("the overview after the sign-off:\n%s", section(page, "Sign-off"))
	}
	var target findings.Finding
	for _, f := range rep.Open() {
		if f.Waiver == nil {
			target = f
			break
		}
	}
	w, _ := json.Marshal(map[string]string{"rule": target.Rule, "entity_id": target.EntityID, "reason": "r", "owner": "o", "expires": "2099-01-01"})
	do(t, srv, call{method: http.MethodPost, path: "/api/waivers", body: string(w), contentType: "application/json"})
	fx.reconcile(t)
	if page := do(t, srv, call{path: "/"}).body; !strings.Contains(page, "The findings have changed since this sign-off.") {
		t.Fatalf("the overview after a waiver changed the findings says nothing:\n%s", section(page, "Sign-off"))
	}
	if lines := fx.report(t).SignOffLines(); len(lines) != 1 || lines[0].Matches {
		t.Fatalf("the report after the change: %+v", lines)
	}
	var all []json.RawMessage
	getJSON(t, srv, "/api/signoffs", &all)
	if len(all) != 1 || !bytes.Contains(all[0], []byte(d)) {
		t.Fatalf("sign-offs after the change: %s", all)
	}
}
