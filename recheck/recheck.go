// Package recheck reads the service again for the open findings of the
// rules about subscription charges, and says of each whether it still
// holds: confirmed (every field the rule read is as the snapshot had it),
// changed (the record is there, a field the rule read is not what it was)
// or gone (the record is no longer there).
//
// It fetches each subscription's charges as they are now through the
// service's query of a subscription's charges (spec §4.2), walked through
// its NextPage links by the same walker, gate, retries, redaction and
// same-origin rule as an export. It never writes to the service.
package recheck

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// What a recheck says of a finding.
const (
	Confirmed = "confirmed"
	Changed   = "changed"
	Gone      = "gone"
)

// The rules a recheck reads again: those about subscription charges (and
// rule 10 where the referencing record is a charge).
const (
	ruleNotInvoiced = "charge_not_invoiced"
	ruleMissedRun   = "missed_billing_run"
	ruleMultiple    = "multiple_active_charges"
	ruleMissing     = "missing_product_charge"
	ruleOrphan      = "orphan_reference"
)

// Rechecked tells whether a recheck reads finding f again.
func Rechecked(f findings.Finding) bool {
	switch f.Rule {
	case ruleNotInvoiced, ruleMissedRun, ruleMultiple, ruleMissing:
		return true
	case ruleOrphan:
		return f.Entity == "subscription_charge"
	}
	return false
}

// Result is what a recheck found of one finding.
type Result struct {
	Finding   findings.Finding
	Live      string // Confirmed, Changed or Gone
	CheckedAt time.Time
	Detail    string // what changed, or what is gone; "" when confirmed
}

// Options say how to fetch.
type Options struct {
	Walker      *extract.Walker
	Concurrency int // subscriptions fetched at once
	Now         func() time.Time
}

// Run rechecks the open findings of rep that Rechecked names, reading
// what the snapshot held of their charges from db (the read model, or
// any database with the subscription_charges view), and returns one
// result per finding in rep's order.
func Run(ctx context.Context, db *sql.DB, rep *findings.Report, o Options) ([]Result, error) {
	var ts []target
	for _, f := range rep.Open() {
		if Rechecked(f) {
			t, err := targetOf(ctx, db, rep.Snapshot.ID, f)
			if err != nil {
				return nil, err
			}
			ts = append(ts, t)
		}
	}
	now, err := fetchAll(ctx, subscriptionsOf(ts), o)
	if err != nil {
		return nil, err
	}
	checked := o.Now().UTC()
	out := make([]Result, len(ts))
	for i, t := range ts {
		live, detail := t.classify(now)
		out[i] = Result{Finding: t.f, Live: live, CheckedAt: checked, Detail: detail}
	}
	return out, nil
}

// subscriptionsOf are the subscriptions whose charges the targets need,
// each once, sorted.
func subscriptionsOf(ts []target) []string {
	var subs []string
	for _, t := range ts {
		if t.sub != "" && !slices.Contains(subs, t.sub) {
			subs = append(subs, t.sub)
		}
	}
	slices.Sort(subs)
	return subs
}

// fetchAll fetches the charges of every subscription, o.Concurrency at
// once (the client's gate bounds the requests in flight).
func fetchAll(ctx context.Context, subs []string, o Options) (map[string][]charge, error) {
	out := make(map[string][]charge, len(subs))
	results := make([][]charge, len(subs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(o.Concurrency, 1))
	for i, sub := range subs {
		g.Go(func() error {
			cs, err := fetch(gctx, o.Walker, sub)
			results[i] = cs
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, sub := range subs {
		out[sub] = results[i]
	}
	return out, nil
}

// chargesObject is the object code of a subscription charge's errors.
const chargesObject = 7

// fetch walks the charges of subscription sub as the service has them
// now. sub goes into an OData guid literal, so it must be a GUID, as the
// spec says a SubscriptionID is: anything else is refused, not sent.
func fetch(ctx context.Context, w *extract.Walker, sub string) ([]charge, error) {
	if _, ok := extract.ParseGUID(sub); !ok {
		return nil, fmt.Errorf("the charges of subscription %q: its ID, from the snapshot, is not a GUID as the spec says a SubscriptionID is; not sent to the service", sub)
	}
	filter := url.QueryEscape(fmt.Sprintf("SubscriptionID eq guid'%s'", sub))
	coll := extract.Collection{Table: "subscription_charges", Path: "/v3/subscriptioncharges/query?$filter=" + filter, Object: chargesObject}
	var s sink
	res, err := w.Walk(ctx, coll, &s)
	if err != nil {
		return nil, fmt.Errorf("the charges of subscription %s: %w", sub, err)
	}
	if !res.Complete {
		return nil, fmt.Errorf("the charges of subscription %s changed while they were read: %s", sub, res.Problem)
	}
	return s.charges, nil
}

// Stage puts results for snapshot snap on conn, a connection of the
// state in a section of the store, as runrec.StagedRechecks, for the
// store to keep beside the earlier rechecks (snapshot.Store.KeepRechecks):
// the latest of each finding is its live state.
func Stage(ctx context.Context, conn *sql.Conn, snap string, results []Result) error {
	if err := runrec.StageTables(ctx, conn); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, "INSERT INTO "+runrec.StagedRechecks+" VALUES (?, ?, ?, ?, ?, nullif(?, ''))")
	if err != nil {
		return err
	}
	defer st.Close()
	for _, r := range results {
		if _, err := st.ExecContext(ctx, snap, r.Finding.Rule, r.Finding.EntityID, r.Live, r.CheckedAt, r.Detail); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Quantity is the Amount, exact, of the active charge of subscription sub
// that carries reference ref, as the service has it now; found is false
// when no active charge carries it.
func Quantity(ctx context.Context, w *extract.Walker, sub, ref string) (amount string, found bool, err error) {
	cs, err := fetch(ctx, w, strings.ToLower(sub))
	if err != nil {
		return "", false, err
	}
	for _, c := range cs {
		if c.ReferenceID == strings.ToLower(ref) && c.Status == statusActive {
			return c.Amount, true, nil
		}
	}
	return "", false, nil
}
