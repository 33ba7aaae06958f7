package recheck

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ingest"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// reconciled exports the sandbox into a new store, reconciles it with
// the shipped rules and keeps the findings; it returns the report and the
// read model, open until the test ends.
func reconciled(t *testing.T, srv *sandbox.Server) (*findings.Report, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	opts := storeconfig.DefaultOptions()
	opts.Out = t.TempDir()
	st, err := snapshot.Open(ctx, opts, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := walker(t, srv)
	colls, _ := catalog.Collections(nil)
	run, err := st.Begin(ctx, snapshot.Meta{BaseURL: w.BaseURL, FrontURL: w.FrontURL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Finish(ctx, ingest.Walk(ctx, w, colls, run), w.Client.Redact); err != nil {
		t.Fatal(err)
	}
	rules, err := reconcile.Rules("")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rep, err := reconcile.Run(ctx, rd, reconcile.Options{Rules: rules, Grace: 48 * time.Hour, Now: time.Now, Materiality: findings.DefaultMateriality()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Keep(ctx, rd); err != nil {
		t.Fatal(err)
	}
	db, err := snapshot.OpenRead(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return rep, db
}

// walker walks the sandbox over HTTP.
func walker(t *testing.T, srv *sandbox.Server) *extract.Walker {
	t.Helper()
	c, err := extract.NewClient(extract.Options{BaseURL: srv.BaseURL(), FrontURL: srv.FrontURL(), Secret: extract.NewSecret(sandboxtest.Key),
		Concurrency: 4, Timeout: 10 * time.Second, Retry: extract.Retry{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return &extract.Walker{Client: c, BaseURL: srv.BaseURL(), FrontURL: srv.FrontURL(), Prefetch: 4}
}

// changeFirst changes, through the sandbox's back office, the first
// charge that pick picks, and tells whether there was one.
func changeFirst(t *testing.T, srv *sandbox.Server, pick func(*sandbox.SubscriptionCharge) bool, change func(*sandbox.SubscriptionCharge)) bool {
	t.Helper()
	for _, c := range srv.Dataset().Charges {
		if pick(c) {
			if err := srv.Change("subscriptioncharges", c.ID, func(rec any) { change(rec.(*sandbox.SubscriptionCharge)) }); err != nil {
				t.Fatal(err)
			}
			return true
		}
	}
	return false
}

// Between the export and the recheck, the service changes (its back
// office): a charge is removed (gone); a charge's quantity changes, a
// reference loses an active charge, a subscription gains the product it
// lacked (changed, each saying what changed); the rest are confirmed.
// Only the open findings about charges are rechecked, one result each,
// stamped with the recheck's clock.
func TestRecheckClassesEachFinding(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 78, Customers: 30, Planted: 1}, "")
	rep, db := reconciled(t, srv)
	want, detail := map[string]string{}, map[string]string{}
	quantitySet := false
	for _, f := range rep.Open() {
		key := f.Rule + " " + f.EntityID
		switch f.Rule {
		case ruleNotInvoiced:
			if err := srv.Remove("subscriptioncharges", f.EntityID); err != nil {
				t.Fatal(err)
			}
			want[key], detail[key] = Gone, "is no longer among"
		case ruleMultiple:
			changeFirst(t, srv, func(c *sandbox.SubscriptionCharge) bool { return c.ReferenceID == f.EntityID && c.Status == 1 },
				func(c *sandbox.SubscriptionCharge) { c.Status = 7 })
			want[key], detail[key] = Changed, "active charges carrying reference"
		case ruleMissing:
			sub, ppc, _ := strings.Cut(f.EntityID, "/")
			if changeFirst(t, srv, func(c *sandbox.SubscriptionCharge) bool { return c.SubscriptionID == sub },
				func(c *sandbox.SubscriptionCharge) { c.ProductPlanChargeID, c.Status = ppc, 1 }) {
				want[key], detail[key] = Changed, "now has an active charge"
				continue
			}
			want[key] = Confirmed
		case ruleMissedRun:
			if !quantitySet {
				if err := srv.Change("subscriptioncharges", f.EntityID, func(rec any) { rec.(*sandbox.SubscriptionCharge).Amount++ }); err != nil {
					t.Fatal(err)
				}
				want[key], detail[key], quantitySet = Changed, "Amount ", true
				continue
			}
			want[key] = Confirmed
		case ruleOrphan:
			if Rechecked(f) {
				want[key] = Confirmed
			}
		}
	}
	at := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	results, err := Run(context.Background(), db, rep, Options{Walker: walker(t, srv), Concurrency: 3, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]int{}
	got := map[string]bool{}
	for _, r := range results {
		key := r.Finding.Rule + " " + r.Finding.EntityID
		got[key] = true
		classes[r.Live]++
		switch {
		case !Rechecked(r.Finding):
			t.Errorf("%s: rechecked, a finding not about a charge", key)
		case r.Live != want[key] || !r.CheckedAt.Equal(at):
			t.Errorf("%s: %s at %s, want %s (%s)", key, r.Live, r.CheckedAt, want[key], r.Detail)
		case (r.Live == Confirmed) != (r.Detail == "") || !strings.Contains(r.Detail, detail[key]):
			t.Errorf("%s: %s with detail %q, want %q", key, r.Live, r.Detail, detail[key])
		}
	}
	for key := range want {
		if !got[key] {
			t.Errorf("%s: not rechecked", key)
		}
	}
	if classes[Gone] == 0 || classes[Changed] < 3 || classes[Confirmed] == 0 || !quantitySet {
		t.Fatalf("the planted cases did not give every class: %v", classes)
	}
}
