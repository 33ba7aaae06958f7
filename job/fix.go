package job

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/fix"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
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
		return p, usage.Wrap(err)
	}
	return p, err
}

// CheckPlan refuses, as a usage error, a plan whose digest is not its
// content's (Plan.CheckDigest), or that was made from a snapshot other
// than the latest complete one of cfg's read model (fix.CheckLatest);
// force lets both through.
func CheckPlan(ctx context.Context, cfg config.Config, p fix.Plan, force bool) error {
	if force {
		return nil
	}
	if err := p.CheckDigest(); err != nil {
		return usage.Wrap(err)
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return err
	}
	defer db.Close()
	err = fix.CheckLatest(ctx, db, p)
	var refused *fix.PlanError
	if errors.As(err, &refused) {
		return usage.Wrap(err)
	}
	return err
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
		ReadBack: rb.Made, Out: out}
	if dryRun {
		return fix.Summary{}, journal.Requests{}, a.DryRun(p)
	}
	sum, err := a.Apply(ctx, p)
	return sum, requestsOf(client), err
}

// newReadBack is the read-back of plan p's writes (fix.ReadBack), over
// cfg's list of invoices and p's snapshot in cfg's read model.
func newReadBack(ctx context.Context, cfg config.Config, w *extract.Walker, snap string) (*fix.ReadBack, error) {
	colls, err := catalog.Collections(cfg.Collections)
	if err != nil {
		return nil, err
	}
	var invoices extract.Collection
	for _, c := range colls {
		if c.Table == "invoices" {
			invoices = extract.Collection(c)
		}
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return fix.NewReadBack(ctx, db, w, invoices, snap)
}
