package recon

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Recon is one stored reconciliation: a snapshot and a period.
type Recon struct {
	Snapshot findings.SnapshotInfo
	Previous string
	Period   string
	AsOf, At time.Time
	Findings int // open findings
	Material bool
}

// Of lists the stored reconciliations of snapshot id, newest first.
func Of(ctx context.Context, db *sql.DB, id string) ([]Recon, error) {
	stored, err := readmodel.ReconciliationsOf(ctx, db, id)
	var out []Recon
	for _, r := range stored {
		out = append(out, OfStored(r))
	}
	return out, err
}

// OfStored is a stored reconciliation, its snapshot known by its ID alone.
func OfStored(r readmodel.Reconciliation) Recon {
	return Recon{Snapshot: findings.SnapshotInfo{ID: r.Snapshot}, Period: r.Period, AsOf: r.AsOf, At: r.At, Findings: r.Findings, Material: r.Material}
}

// Find resolves a snapshot as asked (latest, previous or an ID) and
// picks its reconciliation for period: when period is "", the one of the
// whole snapshot if there is one, else the newest. It is
// *reconcile.NotReconciledError when there is none.
func Find(ctx context.Context, db *sql.DB, snapshot, period string) (Recon, []Recon, error) {
	info, prev, err := reconcile.Resolve(ctx, db, snapshot)
	if err != nil {
		return Recon{}, nil, err
	}
	all, err := Of(ctx, db, info.ID)
	if err != nil {
		return Recon{}, nil, err
	}
	for i := range all {
		all[i].Snapshot, all[i].Previous = info, prev
	}
	i := slices.IndexFunc(all, func(r Recon) bool { return r.Period == period })
	if i < 0 && period == "" && len(all) > 0 {
		i = 0
	}
	if i < 0 {
		return Recon{}, all, &reconcile.NotReconciledError{Snapshot: info.ID, Period: period}
	}
	return all[i], all, nil
}

// Shown is the reconciliation a page shows: the one asked for, or
// when none is (snapshot ""), the latest snapshot's, and if that one is not
// reconciled yet (an export has just published it), the newest one that
// is, with a note saying so.
func Shown(ctx context.Context, db *sql.DB, snapshot, period string) (Recon, []Recon, string, error) {
	if snapshot != "" {
		rc, all, err := Find(ctx, db, snapshot, period)
		return rc, all, "", err
	}
	rc, all, err := Find(ctx, db, reconcile.Latest, period)
	var nr *reconcile.NotReconciledError
	if !errors.As(err, &nr) {
		return rc, all, "", err
	}
	ids, lerr := ReconciledSnapshots(ctx, db)
	if lerr != nil || len(ids) == 0 {
		return rc, all, "", err
	}
	rc, all, err = Find(ctx, db, ids[0], period)
	return rc, all, fmt.Sprintf("The latest snapshot, %s, is not reconciled yet (billsnap reconcile); this is the newest reconciled one.", nr.Snapshot), err
}

// RuleIDs are the IDs of rules, in their order.
func RuleIDs(rules []findings.Rule) []string {
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return ids
}

// Rule is the rule of rules with the given ID; an unknown one (a user
// rule since removed) is shown by its ID.
func Rule(rules []findings.Rule, id string) findings.Rule {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	return findings.Rule{ID: id, Title: id}
}

// RuleTotal is one rule's findings in one currency.
type RuleTotal = readmodel.RuleTotal

// RuleTotals sums the findings of rc per rule and currency, in rule order.
func RuleTotals(ctx context.Context, db *sql.DB, rc Recon, rules []string) ([]RuleTotal, error) {
	return readmodel.RuleTotals(ctx, db, rc.Snapshot.ID, rc.Period, rules)
}

// CurrencyTotals adds the rule totals per currency.
func CurrencyTotals(ts []RuleTotal) map[string]findings.CurrencyTotal {
	out := map[string]findings.CurrencyTotal{}
	for _, t := range ts {
		c := out[t.Currency]
		c.Net += t.Net
		c.Gross += t.Gross
		out[t.Currency] = c
	}
	return out
}

// Digest is reconcile's digest of rc's findings not resolved, waived
// included (findings.Report.Digest): what a sign-off signs; and how many
// of them are open (findings.Report.OpenCount), the number it records.
func Digest(ctx context.Context, db *sql.DB, rc Recon) (string, int, error) {
	current, _, err := List(ctx, db, Filter{Status: "open", Page: 1}, rc.Snapshot.ID, rc.Period, nil, 0)
	if err != nil {
		return "", 0, err
	}
	rep := &findings.Report{Findings: current}
	d, _ := rep.Digest()
	return d, rep.OpenCount(), nil
}

// SignOffOf is what a sign-off of rc records besides who signs.
func SignOffOf(ctx context.Context, db *sql.DB, rc Recon, rules []string) (ledger.SignOff, error) {
	d, n, err := Digest(ctx, db, rc)
	if err != nil {
		return ledger.SignOff{}, err
	}
	ts, err := RuleTotals(ctx, db, rc, rules)
	if err != nil {
		return ledger.SignOff{}, err
	}
	so := ledger.SignOff{Snapshot: rc.Snapshot.ID, Period: rc.Period, Findings: n, Digest: d, Totals: map[string]ledger.Total{}}
	for c, t := range CurrencyTotals(ts) {
		so.Totals[c] = ledger.Total{Net: t.Net.String(), Gross: t.Gross.String()}
	}
	return so, nil
}
