package job

import (
	"context"
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/recheck"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot"
)

// Recheck reads the service again for the open findings about charges of
// the stored reconciliation opts names (opts.SnapshotID, opts.Period),
// stores what it found and returns it with the reconciliation, whose
// findings then carry it. It never writes to the service.
func Recheck(ctx context.Context, cfg config.Config, svc Service, store *snapshot.Store, opts reconcile.Options) (*findings.Report, []recheck.Result, journal.Requests, error) {
	w, err := svc.walker(cfg)
	if err != nil {
		return nil, nil, journal.Requests{}, err
	}
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
	req := requestsOf(w.Client)
	if err != nil {
		return nil, nil, req, err
	}
	err = store.UpdateAndPublish(ctx, func(sec *snapshot.Section) error {
		db := sec.DB()
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if err := recheck.Stage(ctx, conn, rep.Snapshot.ID, results); err != nil {
			return err
		}
		return sec.KeepRechecks(ctx, conn, rep.Snapshot.ID)
	})
	if err != nil {
		return nil, nil, req, err
	}
	// The read model's views read the records as they are now: the
	// rechecks just published are among them.
	opts.SnapshotID = rep.Snapshot.ID
	rep, err = reconcile.Stored(ctx, db, opts)
	return rep, results, req, err
}

// RecheckOutcome is material when findings that the recheck confirmed,
// or did not recheck, are material still: those it found changed or gone
// no longer count.
func RecheckOutcome(rep *findings.Report, m findings.Materiality, req journal.Requests) Outcome {
	out := Outcome{Snapshot: rep.Snapshot.ID, Requests: req}
	if reasons := rep.StillMaterial(m); len(reasons) > 0 {
		out.Material = true
		out.Note = fmt.Sprintf("confirmed material findings in snapshot %s: %s", rep.Snapshot.ID, strings.Join(reasons, "; "))
	}
	return out
}
