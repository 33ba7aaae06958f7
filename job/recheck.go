package job

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/recheck"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot"
)

// Recheck reads the service again for the open findings about charges of
// the stored reconciliation opts names (opts.SnapshotID, opts.Period),
// stores what it found and returns it with the reconciliation, whose
// findings then carry it. It never writes to the service.
func Recheck(ctx context.Context, cfg config.Config, svc Service, store *snapshot.Store, opts reconcile.Options) (*reconcile.Report, []recheck.Result, journal.Requests, error) {
	client, err := extract.NewClient(extract.Options{BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Secret: svc.Secret,
		Concurrency: cfg.Concurrency, Timeout: cfg.Timeout, Retry: cfg.Retry, Log: svc.Log, Clock: svc.Clock})
	if err != nil {
		return nil, nil, journal.Requests{}, UsageError{err}
	}
	w := &extract.Walker{Client: client, BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Prefetch: cfg.Prefetch,
		MaxRewalks: cfg.MaxRewalks, Log: svc.Log, Clock: svc.Clock}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return nil, nil, journal.Requests{}, err
	}
	defer db.Close()
	rep, err := reconcile.Stored(ctx, db, opts)
	if err != nil {
		return nil, nil, journal.Requests{}, err
	}
	results, err := recheck.Run(ctx, db, rep, recheck.Options{Walker: w, Concurrency: cfg.Concurrency, Now: opts.Now})
	st := client.Stats()
	req := journal.Requests{Retries: st.Retries, Throttles: st.Throttles}
	if err != nil {
		return nil, nil, req, err
	}
	err = store.Change(ctx, func(db *sql.DB) error { return recheck.Store(ctx, db, rep.Snapshot.ID, results) })
	if err != nil {
		return nil, nil, req, err
	}
	rep, err = storedAgain(ctx, cfg, opts, rep.Snapshot.ID)
	return rep, results, req, err
}

// storedAgain reads the reconciliation of snapshot id back from the read
// model, its findings with the rechecks just published.
func storedAgain(ctx context.Context, cfg config.Config, opts reconcile.Options, id string) (*reconcile.Report, error) {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	opts.SnapshotID = id
	return reconcile.Stored(ctx, db, opts)
}

// RecheckOutcome is material when findings that the recheck confirmed,
// or did not recheck, are material still: those it found changed or gone
// no longer count.
func RecheckOutcome(rep *reconcile.Report, m reconcile.Materiality, req journal.Requests) Outcome {
	out := Outcome{Snapshot: rep.Snapshot.ID, Requests: req}
	if reasons := rep.StillMaterial(m); len(reasons) > 0 {
		out.Material = true
		out.Note = fmt.Sprintf("confirmed material findings in snapshot %s: %s", rep.Snapshot.ID, strings.Join(reasons, "; "))
	}
	return out
}
