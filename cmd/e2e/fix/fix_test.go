package fix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/fix"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/sandbox"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// eligible are the invoices of the sandbox's planted rule-12 cases that a
// markpaid repairs (named by a settled payment, no PaymentDate, settled
// payments minus refunds equal to the total), each with its last settled
// payment's date: worked out from the sandbox's own data, apart from
// billsnap's SQL.
func eligible(srv *sandbox.Server) map[string]string {
	d := srv.Dataset()
	out := map[string]string{}
	for _, e := range d.Expected {
		if e.Rule != "payment_without_invoice" {
			continue
		}
		var inv *sandbox.Invoice
		for _, t := range d.Transactions {
			if t.ID == e.EntityID && t.InvoiceID != nil {
				for _, i := range d.Invoices {
					if i.ID == *t.InvoiceID {
						inv = i
					}
				}
			}
		}
		if inv == nil || inv.PaymentDate != nil {
			continue
		}
		var net sandbox.Money
		var last time.Time
		for _, t := range d.Transactions {
			if t.InvoiceID == nil || *t.InvoiceID != inv.ID || t.Status != sandbox.TxSettled {
				continue
			}
			switch t.Type {
			case sandbox.TxPayment:
				net += t.Amount
				if t.TransactionDate.After(last) {
					last = t.TransactionDate
				}
			case sandbox.TxRefund:
				net -= t.Amount
			}
		}
		if net == inv.TotalAmount {
			out[inv.ID] = last.UTC().Format(time.RFC3339)
		}
	}
	return out
}

// checkResolved exports and reconciles again: the findings p repaired
// are resolved, and no other rule-12 finding is.
func checkResolved(t *testing.T, srv *sandbox.Server, dir string, p fix.Plan) {
	t.Helper()
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none"); code != job.ExitOK {
		t.Fatalf("export after apply: %d %s", code, stderr)
	}
	_, out, _ := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--format", "json")
	var repaired []string
	for _, a := range p.Actions {
		repaired = append(repaired, a.Finding.EntityID)
	}
	for _, f := range decodeLines[reports.FindingJSON](t, out) {
		if f.Rule != "payment_without_invoice" {
			continue
		}
		if slices.Contains(repaired, f.EntityID) != (f.Status == "resolved") {
			t.Errorf("after apply: %s %s is %s", f.Rule, f.EntityID, f.Status)
		}
	}
}

// checkAmounts plans with --amounts: a quantity a person chose becomes a
// setamount tied to the finding about its charge. An amounts file that is
// not right, or that names a reference no open finding is about, is exit
// 2, naming the line or the reference. (Every way a line is wrong is fix's
// own TestReadAmounts; what a setamount applied does to the service,
// TestAnAppliedWriteIsNeverSentTwice; that a recheck then finds the charge
// changed, recheck's TestRecheckClassesEachFinding.)
func checkAmounts(t *testing.T, srv *sandbox.Server, dir string) {
	t.Helper()
	var target string
	for _, e := range srv.Dataset().Expected {
		if e.Rule == "missed_billing_run" {
			target = e.EntityID
		}
	}
	ref := referenceOf(t, srv, target)
	amounts := filepath.Join(dir, "amounts.csv")
	os.WriteFile(amounts, []byte("reference_id,amount\n"+ref+",0\n"), 0o644)
	code, plan, stderr := e2etest.CLI(t, srv, "fix", "plan", "--out", dir, "--amounts", amounts)
	var p fix.Plan
	if code != job.ExitOK || json.Unmarshal([]byte(plan), &p) != nil {
		t.Fatalf("fix plan --amounts: exit %d\n%s%s", code, plan, stderr)
	}
	last := p.Actions[len(p.Actions)-1]
	if last.Op != fix.OpSetAmount || last.ReferenceID != ref || *last.Quantity != 0 || last.Finding.EntityID != target {
		t.Fatalf("the setamount action %+v, want reference %s tied to %s", last, ref, target)
	}
	for body, want := range map[string]string{
		"reference_id,amount\n" + ref + ",1.5\n":                        "line 2: amount \"1.5\": want a whole number",
		"reference_id,amount\n00000000-0000-4000-8000-000000000000,1\n": "reference 00000000-0000-4000-8000-000000000000: no open finding is about a charge of this reference",
	} {
		os.WriteFile(amounts, []byte(body), 0o644)
		if code, _, stderr := e2etest.CLI(t, srv, "fix", "plan", "--out", dir, "--amounts", amounts); code != job.ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("amounts %q: exit %d, %s", body, code, stderr)
		}
	}
}
