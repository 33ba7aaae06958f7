package fix

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/recheck"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// ReadBack reads from the service whether an action was made: an
// invoice's PaymentDate from the invoices list, walked once; a
// reference's quantity from its subscription's charges (§4.2). Its Made
// is an Applier's ReadBack.
type ReadBack struct {
	w        *extract.Walker
	invoices extract.Collection
	subOf    map[string]string // reference → subscription, from the plan's snapshot
	paid     map[string]bool   // invoices with a PaymentDate; nil until walked
}

// NewReadBack returns the read-back of the writes of a plan made from
// snapshot snap, reading the service through w (invoices: its list of
// invoices), and each reference's subscription from snap in the read
// model db, which it reads now and no more.
func NewReadBack(ctx context.Context, db *sql.DB, w *extract.Walker, invoices extract.Collection, snap string) (*ReadBack, error) {
	subOf, err := readmodel.SubscriptionsOfReferences(ctx, db, snap)
	if err != nil {
		return nil, err
	}
	return &ReadBack{w: w, invoices: invoices, subOf: subOf}, nil
}

// Made tells whether the service has made act, as it reads now: a
// setamount by its reference's quantity, a markpaid by its invoice's
// PaymentDate (the invoices are walked at the first markpaid, once).
func (rb *ReadBack) Made(ctx context.Context, act Action) (bool, error) {
	if act.Op == OpSetAmount {
		amount, found, err := recheck.Quantity(ctx, rb.w, rb.subOf[strings.ToLower(act.ReferenceID)], act.ReferenceID)
		return found && amount == strconv.FormatInt(*act.Quantity, 10), err
	}
	if rb.paid == nil {
		s := &paidSink{paid: map[string]bool{}}
		res, err := rb.w.Walk(ctx, rb.invoices, s)
		if err != nil {
			return false, err
		}
		if !res.Complete {
			return false, fmt.Errorf("the invoices changed while they were read: %s", res.Problem)
		}
		rb.paid = s.paid
	}
	return rb.paid[strings.ToLower(act.InvoiceID)], nil
}

// paidSink keeps which invoices have a PaymentDate.
type paidSink struct {
	paid map[string]bool
	ids  extract.Counter
}

func (s *paidSink) Restart(int) error {
	clear(s.paid)
	s.ids.Reset()
	return nil
}

func (s *paidSink) Page(p *extract.Page) error {
	for _, r := range p.Records {
		var v struct {
			ID          string
			PaymentDate *string
		}
		if err := json.Unmarshal([]byte(r.Raw), &v); err != nil {
			return fmt.Errorf("an invoice: %w", err)
		}
		id := strings.ToLower(v.ID)
		s.ids.Add(id)
		s.paid[id] = v.PaymentDate != nil && *v.PaymentDate != ""
	}
	return nil
}

func (s *paidSink) End() (extract.Tally, error) { return s.ids.Tally(), nil }
