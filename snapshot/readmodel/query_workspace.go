package readmodel

import (
	"context"
	"slices"

	"github.com/billsnap/billsnap/snapshot/runrec"
)

// The functions of this file are what the workspace asks of the findings
// when finance waives: whether a waiver names a finding at all, and which
// findings a waiver made since their reconciliation will cover.

// WaiverKey is how a waiver names findings: its rule and record, as one
// value.
func WaiverKey(rule, entityID string) string { return rule + "\x1f" + entityID }

// Named tells whether any stored finding, of any reconciliation, is of
// rule and names record entityID.
func Named(ctx context.Context, q Querier, rule, entityID string) (bool, error) {
	var ok bool
	err := q.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM findings WHERE rule = ? AND entity_id = ?)", rule, entityID).Scan(&ok)
	return ok, err
}

// Pending counts, per rule, the open findings of reconciliation (id,
// period) that are not waived yet and that one of keys (WaiverKey) names.
func Pending(ctx context.Context, q Querier, id, period string, keys []string) (map[string]int, error) {
	if len(keys) == 0 {
		return map[string]int{}, nil
	}
	counts, err := ofRun(ctx, q, id, period, func(s runSources) ([]RuleCount, error) {
		fs := s.of(runrec.Findings)
		return collect(ctx, q, scanCount, `SELECT rule, count(*) FROM `+fs.rel+` WHERE snapshot_id = ? AND `+periodIs+` AND NOT waived AND status <> 'resolved'
		AND list_contains(?, rule || chr(31) || entity_id) GROUP BY rule`, slices.Concat(fs.args, []any{id, period, keys})...)
	})
	return countsBy(counts), err
}
