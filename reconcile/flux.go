package reconcile

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// FluxReview is a month's flux review over one snapshot: its lines, each
// with the explanation that stands for it, and notes on what the figures
// lack.
type FluxReview struct {
	Period, Previous, Snapshot string
	Threshold                  flux.Options
	Lines                      []flux.Line
	Notes                      []string
}

// Flux reviews month p over snapshot snap of the read model db: each
// measure against the month before, from the snapshot's records and its
// stored reconciliations of the two months (in the order of rules), over
// the threshold of o, explained by xs (the ledger's, oldest first).
func Flux(ctx context.Context, db *sql.DB, snap string, p *findings.Period, rules []string, o flux.Options, xs []ledger.Explained) (FluxReview, error) {
	prev := findings.MonthOf(p.Start, -1)
	v := FluxReview{Period: p.String(), Previous: prev.String(), Snapshot: snap, Threshold: o}
	figs := [2]map[string]flux.Figures{}
	for i, m := range []*findings.Period{prev, p} {
		var err error
		if figs[i], err = monthFigures(ctx, db, snap, m, rules, &v.Notes); err != nil {
			return FluxReview{}, err
		}
	}
	v.Lines = flux.Lines(o, figs[0], figs[1])
	flux.Explain(v.Lines, v.Period, xs)
	return v, nil
}

// monthFigures are the measures of month m in snapshot snap: its records'
// figures, and the money at risk of the snapshot's reconciliation of m
// (none, with a note, when it has none).
func monthFigures(ctx context.Context, db *sql.DB, snap string, m *findings.Period, rules []string, notes *[]string) (map[string]flux.Figures, error) {
	f, err := readmodel.FiguresOf(ctx, db, snap, m.Start, m.End())
	if err != nil {
		return nil, err
	}
	out := map[string]flux.Figures{flux.Billed: f.Billed, flux.Collected: f.Collected, flux.Credited: f.Credited,
		flux.OpenReceivables: f.OpenReceivables, flux.MoneyAtRisk: {}}
	rcs, err := readmodel.ReconciliationsOf(ctx, db, snap)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(rcs, func(r readmodel.Reconciliation) bool { return r.Period == m.String() }) {
		*notes = append(*notes, fmt.Sprintf("snapshot %s has no reconciliation of %s (billsnap reconcile --period %s): its money at risk counts as none", snap, m, m))
		return out, nil
	}
	ts, err := readmodel.RuleTotals(ctx, db, snap, m.String(), rules)
	for _, t := range ts {
		out[flux.MoneyAtRisk][t.Currency] += t.Gross
	}
	return out, err
}
