package job

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/fix"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/recheck"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot"
)

// FixPlan makes the plan of writes for the stored reconciliation opts
// names, with the quantities a person chose. It reads the store only.
func FixPlan(ctx context.Context, cfg config.Config, opts reconcile.Options, amounts []fix.Amount) (fix.Plan, error) {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return fix.Plan{}, err
	}
	defer db.Close()
	rep, err := reconcile.Stored(ctx, db, opts)
	if err != nil {
		return fix.Plan{}, err
	}
	p, err := fix.Make(ctx, db, rep, amounts, opts.Now())
	var bad *fix.AmountError
	if errors.As(err, &bad) {
		return p, Usage(err)
	}
	return p, err
}

// CheckPlan refuses, as a usage error, a plan whose digest is not its
// content's, or that was made from a snapshot other than the latest
// complete one; force lets both through.
func CheckPlan(ctx context.Context, cfg config.Config, p fix.Plan, force bool) error {
	if force {
		return nil
	}
	if sum := p.Sum(); sum != p.Digest {
		return Usagef("the plan's digest is %s, but its content's is %s: it was changed after it was made (make it again, or --force)", p.Digest, sum)
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return err
	}
	defer db.Close()
	info, _, err := reconcile.Resolve(ctx, db, reconcile.Latest)
	if err != nil {
		return err
	}
	if info.ID != p.Snapshot {
		return Usagef("the plan was made from snapshot %s, and the latest is %s: make the plan again from the latest (or --force)", p.Snapshot, info.ID)
	}
	return nil
}

// FixApply applies plan p (dryRun: prints its requests, sends none), with
// every request and answer recorded in the store, and returns what it
// did and what its requests met.
func FixApply(ctx context.Context, cfg config.Config, svc Service, p fix.Plan, dryRun bool, out io.Writer) (fix.Summary, journal.Requests, error) {
	w, err := svc.walker(cfg)
	if err != nil {
		return fix.Summary{}, journal.Requests{}, err
	}
	client := w.Client
	rb, err := newReadBack(ctx, cfg, w, p.Snapshot)
	if err != nil {
		return fix.Summary{}, journal.Requests{}, err
	}
	a := &fix.Applier{Client: client, BaseURL: cfg.BaseURL, Record: fix.NewRecord(layout.Dir(cfg.Out).Fixes(), time.Now),
		ReadBack: rb.made, Out: out}
	if dryRun {
		return fix.Summary{}, journal.Requests{}, a.DryRun(p)
	}
	sum, err := a.Apply(ctx, p)
	return sum, requestsOf(client), err
}

// readBack reads from the service whether an action was made: an
// invoice's PaymentDate from the invoices list, walked once; a
// reference's quantity from its subscription's charges (§4.2).
type readBack struct {
	w        *extract.Walker
	invoices extract.Collection
	subOf    map[string]string // reference → subscription, from the plan's snapshot
	paid     map[string]bool   // invoices with a PaymentDate; nil until walked
}

func newReadBack(ctx context.Context, cfg config.Config, w *extract.Walker, snap string) (*readBack, error) {
	colls, err := catalog.Collections(cfg.Collections)
	if err != nil {
		return nil, err
	}
	rb := &readBack{w: w, subOf: map[string]string{}}
	for _, c := range colls {
		if c.Table == "invoices" {
			rb.invoices = c
		}
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT lower(reference_id), lower(subscription_id) FROM subscription_charges WHERE snapshot_id = ? AND reference_id IS NOT NULL", snap)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var ref string
		var sub sql.NullString
		if err := rows.Scan(&ref, &sub); err != nil {
			return nil, err
		}
		rb.subOf[ref] = sub.String
	}
	return rb, rows.Err()
}

func (rb *readBack) made(ctx context.Context, act fix.Action) (bool, error) {
	if act.Op == fix.OpSetAmount {
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
