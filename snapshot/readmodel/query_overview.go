package readmodel

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// GrossTrend is the money at risk of the reconciliations of period of
// each snapshot of ids: per snapshot and currency, the gross (the sum of
// the absolute amounts) of its open findings not waived, as reconciled. A
// snapshot without such findings, or not reconciled for period, is
// absent; findings without a currency are left out. It reads the files
// the index lists of those reconciliations alone, in one query.
func GrossTrend(ctx context.Context, q Querier, period string, ids []string) (map[string]map[string]money.Amount, error) {
	out := map[string]map[string]money.Amount{}
	if len(ids) == 0 {
		return out, nil
	}
	files, err := collect(ctx, q, scanString, "SELECT snapshot_id || '.' || seq || '.parquet' FROM run_files WHERE kind = ? AND list_contains(?, snapshot_id) AND "+periodIs+" ORDER BY seq",
		runrec.Findings.Name, ids, period)
	if err != nil && !catalogError(err) {
		return nil, err
	}
	var rows []grossRow
	if err == nil {
		rows, err = grossOf(ctx, q, runSource{rel: runrec.Findings.Name + "_in(?)", args: []any{files}}, period, ids)
	}
	if catalogError(err) {
		// A read model published before it had the macros: the views.
		rows, err = grossOf(ctx, q, runSource{rel: runrec.Findings.Name}, period, ids)
	}
	for _, r := range rows {
		if out[r.snap] == nil {
			out[r.snap] = map[string]money.Amount{}
		}
		out[r.snap][r.currency] = r.gross
	}
	return out, err
}

// grossRow is the money at risk of one snapshot in one currency.
type grossRow struct {
	snap, currency string
	gross          money.Amount
}

// grossOf is GrossTrend's query, of the findings of src.
func grossOf(ctx context.Context, q Querier, src runSource, period string, ids []string) ([]grossRow, error) {
	return collect(ctx, q, func(rows *sql.Rows) (grossRow, error) {
		var r grossRow
		var gross string
		if err := rows.Scan(&r.snap, &r.currency, &gross); err != nil {
			return r, err
		}
		var err error
		r.gross, err = money.Parse(gross)
		return r, err
	}, `SELECT snapshot_id, currency, CAST(sum(abs(amount)) AS VARCHAR) FROM `+src.rel+`
		WHERE list_contains(?, snapshot_id) AND `+periodIs+` AND status <> 'resolved' AND NOT waived AND currency IS NOT NULL AND currency <> ''
		GROUP BY ALL ORDER BY ALL`, slices.Concat(src.args, []any{ids, period})...)
}

// OverviewRow is a group of the stored findings of one reconciliation
// that share their rule, currency ("" for none), status, waived, the
// snapshot they were first seen in, and whether the keys given of
// overdue, assigned and pending (WaiverKey) findings name them: their
// count, the sum of their amounts and of their absolute amounts.
type OverviewRow struct {
	Rule, Currency, Status, FirstSeen string
	Waived                            bool
	Overdue, Assigned, Pending        bool
	N                                 int
	Net, Gross                        money.Amount
}

// Open tells whether the row's findings are open: not resolved, not
// waived (as reconciled).
func (r OverviewRow) Open() bool { return r.Status != "resolved" && !r.Waived }

// OverviewRows groups the stored findings of reconciliation (id, period)
// for the overview, named by overdue, assigned and pending (lists of
// WaiverKey): its rules table (OverviewTotals, as RuleTotals), what was
// waived since (as Pending), its tiles and its aging, all from one query
// of its files, not one each.
func OverviewRows(ctx context.Context, q Querier, id, period string, overdue, assigned, pending []string) ([]OverviewRow, error) {
	return ofRun(ctx, q, id, period, func(s runSources) ([]OverviewRow, error) {
		fs := s.of(runrec.Findings)
		// The keys are joined, not looked up in a list per finding (a
		// store of many assignments costs a hash join, not their number
		// times the findings'), and only when there are any: a
		// reconciliation with none groups its findings alone.
		var marks, joins, key []string
		args := slices.Concat(fs.args, []any{id, period})
		for i, list := range [][]string{overdue, assigned, pending} {
			if len(list) == 0 {
				marks = append(marks, "false")
				continue
			}
			alias := fmt.Sprintf("k%d", i)
			marks = append(marks, alias+".k IS NOT NULL")
			joins = append(joins, " LEFT JOIN (SELECT DISTINCT unnest(CAST(? AS VARCHAR[])) AS k) "+alias+" ON "+alias+".k = f.k")
			args = append(args, list)
			key = []string{", rule || chr(31) || entity_id AS k"}
		}
		return collect(ctx, q, scanOverviewRow, `SELECT f.rule, f.currency, f.status, f.waived, f.first_seen, `+strings.Join(marks, ", ")+`,
			count(*), CAST(coalesce(sum(f.amount), 0) AS VARCHAR), CAST(coalesce(sum(abs(f.amount)), 0) AS VARCHAR)
			FROM (SELECT rule, coalesce(currency, '') AS currency, status, waived, coalesce(first_seen, '') AS first_seen, amount`+strings.Join(key, "")+`
			      FROM `+fs.rel+` WHERE snapshot_id = ? AND `+periodIs+`) f`+strings.Join(joins, "")+`
			GROUP BY ALL ORDER BY ALL`, args...)
	})
}

func scanOverviewRow(rows *sql.Rows) (OverviewRow, error) {
	var r OverviewRow
	var net, gross string
	if err := rows.Scan(&r.Rule, &r.Currency, &r.Status, &r.Waived, &r.FirstSeen, &r.Overdue, &r.Assigned, &r.Pending, &r.N, &net, &gross); err != nil {
		return r, err
	}
	var err error
	if r.Net, err = money.Parse(net); err != nil {
		return r, err
	}
	r.Gross, err = money.Parse(gross)
	return r, err
}

// OverviewTotals are rows summed per rule and currency as RuleTotals sums
// the findings: the rules in the order of rules (those it does not name
// after, by ID), then by currency.
func OverviewTotals(rows []OverviewRow, rules []string) []RuleTotal {
	type key struct{ rule, currency string }
	sums := map[key]*RuleTotal{}
	var order []key
	for _, r := range rows {
		k := key{r.Rule, r.Currency}
		t := sums[k]
		if t == nil {
			t = &RuleTotal{Rule: r.Rule, Currency: r.Currency}
			sums[k] = t
			order = append(order, k)
		}
		switch r.Status {
		case "resolved":
			t.Resolved += r.N
		case "new":
			t.New += r.N
		case "recurring":
			t.Recurring += r.N
		}
		if r.Status == "resolved" {
			continue
		}
		t.Count += r.N
		if r.Waived {
			t.Waived += r.N
			continue
		}
		t.Net += r.Net
		t.Gross += r.Gross
	}
	pos := func(rule string) int {
		if i := slices.Index(rules, rule); i >= 0 {
			return i
		}
		return len(rules)
	}
	slices.SortFunc(order, func(a, b key) int {
		return cmp.Or(cmp.Compare(pos(a.rule), pos(b.rule)), cmp.Compare(a.rule, b.rule), cmp.Compare(a.currency, b.currency))
	})
	out := make([]RuleTotal, len(order))
	for i, k := range order {
		out[i] = *sums[k]
	}
	return out
}

// OverviewPending counts, per rule, the open findings of rows that a
// pending key names, as Pending does.
func OverviewPending(rows []OverviewRow) map[string]int {
	out := map[string]int{}
	for _, r := range rows {
		if r.Pending && r.Open() {
			out[r.Rule] += r.N
		}
	}
	return out
}
