package job

import (
	"context"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot"
)

// reportFlux is the flux review of rep's period over its snapshot, with
// the explanations of the store's ledger, as its reports show it; nil for
// a reconciliation of a whole snapshot. It reads the read model (the
// records of every snapshot, and rep's reconciliation, kept by then): a
// reading of the state has neither.
func reportFlux(ctx context.Context, cfg config.Config, rep *findings.Report) (*reports.Flux, error) {
	if rep.Period == nil {
		return nil, nil
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	entries, err := ledger.New(layout.Dir(cfg.Out).Ledger(), time.Now).Read()
	if err != nil {
		return nil, err
	}
	rules := make([]string, len(rep.Rules))
	for i, r := range rep.Rules {
		rules[i] = r.ID
	}
	v, err := reconcile.Flux(ctx, db, rep.Snapshot.ID, rep.Period, rules, cfg.Flux, ledger.Fold(entries).Explanations)
	if err != nil {
		return nil, err
	}
	return &reports.Flux{Period: v.Period, Previous: v.Previous, Snapshot: v.Snapshot, Lines: v.Lines}, nil
}
