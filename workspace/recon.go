package workspace

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

// recon is one stored reconciliation: a snapshot and a period.
type recon struct {
	Snapshot findings.SnapshotInfo
	Previous string
	Period   string
	AsOf, At time.Time
	Findings int // open findings
	Material bool
}

// reconsOf lists the stored reconciliations of snapshot id, newest first.
func reconsOf(ctx context.Context, db *sql.DB, id string) ([]recon, error) {
	stored, err := readmodel.ReconciliationsOf(ctx, db, id)
	var out []recon
	for _, r := range stored {
		out = append(out, reconOf(r))
	}
	return out, err
}

// reconOf is a stored reconciliation, its snapshot known by its ID alone.
func reconOf(r readmodel.Reconciliation) recon {
	return recon{Snapshot: findings.SnapshotInfo{ID: r.Snapshot}, Period: r.Period, AsOf: r.AsOf, At: r.At, Findings: r.Findings, Material: r.Material}
}

// findRecon resolves a snapshot as asked (latest, previous or an ID) and
// picks its reconciliation for period: when period is "", the one of the
// whole snapshot if there is one, else the newest. It is
// *reconcile.NotReconciledError when there is none.
func findRecon(ctx context.Context, db *sql.DB, snapshot, period string) (recon, []recon, error) {
	info, prev, err := reconcile.Resolve(ctx, db, snapshot)
	if err != nil {
		return recon{}, nil, err
	}
	all, err := reconsOf(ctx, db, info.ID)
	if err != nil {
		return recon{}, nil, err
	}
	for i := range all {
		all[i].Snapshot, all[i].Previous = info, prev
	}
	i := slices.IndexFunc(all, func(r recon) bool { return r.Period == period })
	if i < 0 && period == "" && len(all) > 0 {
		i = 0
	}
	if i < 0 {
		return recon{}, all, &reconcile.NotReconciledError{Snapshot: info.ID, Period: period}
	}
	return all[i], all, nil
}

// shownRecon is the reconciliation a page shows: the one asked for, or
// when none is (snapshot ""), the latest snapshot's, and if that one is not
// reconciled yet (an export has just published it), the newest one that
// is, with a note saying so.
func shownRecon(ctx context.Context, db *sql.DB, snapshot, period string) (recon, []recon, string, error) {
	if snapshot != "" {
		rc, all, err := findRecon(ctx, db, snapshot, period)
		return rc, all, "", err
	}
	rc, all, err := findRecon(ctx, db, reconcile.Latest, period)
	var nr *reconcile.NotReconciledError
	if !errors.As(err, &nr) {
		return rc, all, "", err
	}
	ids, lerr := reconciledSnapshots(ctx, db)
	if lerr != nil || len(ids) == 0 {
		return rc, all, "", err
	}
	rc, all, err = findRecon(ctx, db, ids[0], period)
	return rc, all, fmt.Sprintf("The latest snapshot, %s, is not reconciled yet (billsnap reconcile); this is the newest reconciled one.", nr.Snapshot), err
}

// ruleTotal is one rule's findings in one currency.
type ruleTotal = readmodel.RuleTotal

// ruleTotals sums the findings of rc per rule and currency, in rule order.
func ruleTotals(ctx context.Context, db *sql.DB, rc recon, rules []string) ([]ruleTotal, error) {
	return readmodel.RuleTotals(ctx, db, rc.Snapshot.ID, rc.Period, rules)
}

// currencyTotals adds the rule totals per currency.
func currencyTotals(ts []ruleTotal) map[string]findings.CurrencyTotal {
	out := map[string]findings.CurrencyTotal{}
	for _, t := range ts {
		c := out[t.Currency]
		c.Net += t.Net
		c.Gross += t.Gross
		out[t.Currency] = c
	}
	return out
}

// digest is reconcile's digest of rc's findings not resolved, waived
// included (findings.Report.Digest): what a sign-off signs; and how many
// of them are open (findings.Report.OpenCount), the number it records.
func digest(ctx context.Context, db *sql.DB, rc recon) (string, int, error) {
	current, _, err := listFindings(ctx, db, filter{Status: "open", Page: 1}, rc.Snapshot.ID, rc.Period, nil, 0)
	if err != nil {
		return "", 0, err
	}
	rep := &findings.Report{Findings: current}
	d, _ := rep.Digest()
	return d, rep.OpenCount(), nil
}

// signOffOf is what a sign-off of rc records besides who signs.
func signOffOf(ctx context.Context, db *sql.DB, rc recon, rules []string) (ledger.SignOff, error) {
	d, n, err := digest(ctx, db, rc)
	if err != nil {
		return ledger.SignOff{}, err
	}
	ts, err := ruleTotals(ctx, db, rc, rules)
	if err != nil {
		return ledger.SignOff{}, err
	}
	so := ledger.SignOff{Snapshot: rc.Snapshot.ID, Period: rc.Period, Findings: n, Digest: d, Totals: map[string]ledger.Total{}}
	for c, t := range currencyTotals(ts) {
		so.Totals[c] = ledger.Total{Net: t.Net.String(), Gross: t.Gross.String()}
	}
	return so, nil
}
