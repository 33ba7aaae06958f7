package readmodel

import (
	"context"
	"database/sql"
	"slices"

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

// WorkCount is how many open findings, not waived, of one reconciliation
// were first seen in one snapshot and share the marks: new (not in the
// snapshot compared with), and named by the keys given of overdue,
// assigned and pending (WaiverKey) findings.
type WorkCount struct {
	FirstSeen                       string
	New, Overdue, Assigned, Pending bool
	N                               int
}

// OpenWork counts the open findings not waived of reconciliation (id,
// period) by when they were first seen and by whether they are new and
// named by overdue, assigned and pending (lists of WaiverKey): what the
// overview's tiles and aging are added up from, in one query of its
// files.
func OpenWork(ctx context.Context, q Querier, id, period string, overdue, assigned, pending []string) ([]WorkCount, error) {
	return ofRun(ctx, q, id, period, func(s runSources) ([]WorkCount, error) {
		fs := s.of(runrec.Findings)
		// The keys are joined, not looked up in a list per finding: a
		// store of many assignments costs a hash join, not their number
		// times the findings'.
		keys := func(alias string) string {
			return " LEFT JOIN (SELECT DISTINCT unnest(CAST(? AS VARCHAR[])) AS k) " + alias + " ON " + alias + ".k = f.k"
		}
		return collect(ctx, q, func(rows *sql.Rows) (WorkCount, error) {
			var w WorkCount
			err := rows.Scan(&w.FirstSeen, &w.New, &w.Overdue, &w.Assigned, &w.Pending, &w.N)
			return w, err
		}, `SELECT f.first_seen, f.new, o.k IS NOT NULL, a.k IS NOT NULL, p.k IS NOT NULL, count(*)
			FROM (SELECT coalesce(first_seen, '') AS first_seen, status = 'new' AS new, rule || chr(31) || entity_id AS k FROM `+fs.rel+`
			      WHERE snapshot_id = ? AND `+periodIs+` AND status <> 'resolved' AND NOT waived) f`+keys("o")+keys("a")+keys("p")+`
			GROUP BY ALL ORDER BY ALL`, slices.Concat(fs.args, []any{id, period, nonNil(overdue), nonNil(assigned), nonNil(pending)})...)
	})
}

// nonNil is keys, an empty list for none (a NULL list contains nothing,
// and says so as NULL, not false).
func nonNil(keys []string) []string {
	if keys == nil {
		return []string{}
	}
	return keys
}
