// Package fix turns findings into a reviewable plan of writes the
// service's own operations can make (markpaid: mark an invoice paid, spec
// §4.5; setamount: set a charge's quantity by its reference, §4.3), and
// applies a plan: once, with every request and answer on record, a write
// whose fate is unknown read back before it is sent again, and nothing
// sent twice.
//
// A [Plan] is tied to its findings and carries its digest. Before it is
// applied it is checked: [Plan.CheckDigest] (the plan is as it was made)
// and [CheckLatest] (it was made from the latest complete snapshot), each
// failing with a [*PlanError], which job.CheckPlan makes a usage error.
// An [Applier] applies it. A [ReadBack] reads a write's fate back from the
// service: an invoice's PaymentDate from the invoices list, a quantity
// through package recheck.
package fix

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Operations a plan holds.
const (
	OpMarkPaid  = "markpaid"
	OpSetAmount = "setamount"
)

// Plan is what apply will do, each action tied to the finding it repairs.
type Plan struct {
	Snapshot string    `json:"snapshot_id"`
	Created  time.Time `json:"created"`
	Digest   string    `json:"digest"` // of everything else in the plan (Plan.Sum)
	Actions  []Action  `json:"actions"`
}

// Action is one write.
type Action struct {
	Op          string  `json:"op"`
	InvoiceID   string  `json:"invoice_id,omitempty"`   // markpaid
	PaymentDate string  `json:"payment_date,omitempty"` // markpaid: RFC 3339, UTC
	ReferenceID string  `json:"reference_id,omitempty"` // setamount
	Quantity    *int64  `json:"quantity,omitempty"`     // setamount
	Finding     Finding `json:"finding"`
}

// Finding is the finding an action repairs.
type Finding struct {
	Rule     string `json:"rule"`
	EntityID string `json:"entity_id"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// Key names an action within its plan, for the record of what was sent.
func (a Action) Key() string {
	if a.Op == OpMarkPaid {
		return a.Op + " " + a.InvoiceID
	}
	return a.Op + " " + a.ReferenceID
}

// Sum is the SHA-256 of the plan without its digest: its snapshot, time
// and actions, as encoding/json writes them.
func (p Plan) Sum() string {
	p.Digest = ""
	b, _ := json.Marshal(p)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Write writes the plan, with its digest, as indented JSON.
func (p Plan) Write(w io.Writer) error {
	p.Digest = p.Sum()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// Read reads a plan from a file; unknown fields are refused.
func Read(path string) (Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return Plan{}, fmt.Errorf("--plan: %w", err)
	}
	defer f.Close()
	var p Plan
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Plan{}, fmt.Errorf("--plan %s: %w", path, err)
	}
	if err := p.Check(); err != nil {
		return Plan{}, fmt.Errorf("--plan %s: %w", path, err)
	}
	return p, nil
}

// Check returns what makes p's actions unsendable, naming the first such
// action: an unknown operation, a setamount without a quantity, or an
// invoice or reference ID that is not a GUID, as the spec says both are
// (each goes into a URL path). A plan edited by hand, --force or not,
// sends nothing else.
func (p Plan) Check() error {
	for i, a := range p.Actions {
		if err := a.check(); err != nil {
			return fmt.Errorf("action %d (%s): %w", i+1, a.Op, err)
		}
	}
	return nil
}

func (a Action) check() error {
	switch a.Op {
	case OpMarkPaid:
		if !guidRE.MatchString(a.InvoiceID) {
			return fmt.Errorf("invoice_id %q is not a GUID", a.InvoiceID)
		}
	case OpSetAmount:
		if !guidRE.MatchString(a.ReferenceID) {
			return fmt.Errorf("reference_id %q is not a GUID", a.ReferenceID)
		}
		if a.Quantity == nil {
			return fmt.Errorf("no quantity")
		}
	default:
		return fmt.Errorf("unknown operation %q (want %s or %s)", a.Op, OpMarkPaid, OpSetAmount)
	}
	return nil
}

// Make builds the plan for rep, a stored reconciliation, reading its
// snapshot from db (the read model): a markpaid for each invoice that a
// payment_without_invoice finding names, that has no PaymentDate, and
// whose settled payments minus settled refunds equal its TotalAmount
// (PaymentDate: its last settled payment's TransactionDate); then a
// setamount for each quantity a person chose (amounts), each tied to an
// open finding about a charge of that reference.
func Make(ctx context.Context, db *sql.DB, rep *findings.Report, amounts []Amount, now time.Time) (Plan, error) {
	p := Plan{Snapshot: rep.Snapshot.ID, Created: now.UTC().Truncate(time.Second), Actions: []Action{}}
	paid, err := markPaid(ctx, db, rep)
	if err != nil {
		return p, err
	}
	p.Actions = append(p.Actions, paid...)
	set, err := setAmounts(ctx, db, rep, amounts)
	if err != nil {
		return p, err
	}
	p.Actions = append(p.Actions, set...)
	p.Digest = p.Sum()
	return p, nil
}

// ruleNoInvoice is rule 12's ID.
const ruleNoInvoice = "payment_without_invoice"

// markPaid proposes a markpaid for every eligible invoice of rule 12's
// findings, tied to the finding of the invoice's last settled payment.
func markPaid(ctx context.Context, db *sql.DB, rep *findings.Report) ([]Action, error) {
	findings := map[string]findings.Finding{}
	for _, f := range rep.Open() {
		if f.Rule == ruleNoInvoice {
			findings[f.EntityID] = f
		}
	}
	rows, err := db.QueryContext(ctx, `
		WITH settled AS (
		  SELECT * FROM transactions WHERE snapshot_id = ? AND status = 'Settled' AND invoice_id IS NOT NULL),
		net AS (
		  SELECT invoice_id, sum(CASE type WHEN 'Payment' THEN amount WHEN 'Refund' THEN -amount ELSE 0 END) AS net,
		         arg_max(id, transaction_date) FILTER (WHERE type = 'Payment') AS last_id,
		         max(transaction_date) FILTER (WHERE type = 'Payment') AS last_at
		  FROM settled GROUP BY invoice_id)
		SELECT i.id, n.last_id, n.last_at FROM invoices i JOIN net n ON n.invoice_id = i.id
		WHERE i.snapshot_id = ? AND i.payment_date IS NULL AND abs(n.net - i.total_amount) < 0.005 AND n.last_id IS NOT NULL
		ORDER BY i.id`, rep.Snapshot.ID, rep.Snapshot.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		var invoice, last string
		var at time.Time
		if err := rows.Scan(&invoice, &last, &at); err != nil {
			return nil, err
		}
		f, ok := findings[last]
		if !ok {
			continue
		}
		out = append(out, Action{Op: OpMarkPaid, InvoiceID: invoice, PaymentDate: at.UTC().Format(time.RFC3339), Finding: findingOf(f)})
	}
	return out, rows.Err()
}

func findingOf(f findings.Finding) Finding {
	return Finding{Rule: f.Rule, EntityID: f.EntityID, Amount: f.Amount.String(), Currency: f.Currency}
}

// setAmounts ties each chosen quantity to an open finding about a charge
// of its reference: rule 8's of the reference itself, else one of rules
// 1, 7 or 10 about a charge that carries it.
func setAmounts(ctx context.Context, db *sql.DB, rep *findings.Report, amounts []Amount) ([]Action, error) {
	var out []Action
	for _, a := range amounts {
		f, err := findingOfReference(ctx, db, rep, a.ReferenceID)
		if err != nil {
			return nil, err
		}
		q := a.Quantity
		out = append(out, Action{Op: OpSetAmount, ReferenceID: a.ReferenceID, Quantity: &q, Finding: findingOf(f)})
	}
	return out, nil
}

// findingOfReference is the open finding a quantity for reference ref
// repairs.
func findingOfReference(ctx context.Context, db *sql.DB, rep *findings.Report, ref string) (findings.Finding, error) {
	open := rep.Open()
	if i := slices.IndexFunc(open, func(f findings.Finding) bool { return f.Rule == "multiple_active_charges" && f.EntityID == ref }); i >= 0 {
		return open[i], nil
	}
	charges, err := readmodel.ChargesOfReference(ctx, db, rep.Snapshot.ID, ref)
	if err != nil {
		return findings.Finding{}, err
	}
	for _, f := range open {
		if f.Entity == "subscription_charge" && slices.Contains(charges, f.EntityID) {
			return f, nil
		}
	}
	return findings.Finding{}, &AmountError{Reference: ref, Msg: "no open finding is about a charge of this reference"}
}
