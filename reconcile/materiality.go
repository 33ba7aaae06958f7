package reconcile

import (
	"fmt"
	"slices"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/money"
)

// checkMateriality refuses thresholds for rules that do not exist.
func checkMateriality(m config.Materiality, rules []Rule) error {
	for id := range m.Rules {
		if !slices.ContainsFunc(rules, func(r Rule) bool { return r.ID == id }) {
			return &configkey.Error{Key: "reconcile.materiality.rules." + id, Msg: "no rule has this ID"}
		}
	}
	return nil
}

// judge says why the unwaived findings are material: per rule, its own
// threshold, else its severity's. snapshot_incomplete is always material.
func judge(r *Report, m config.Materiality) []string {
	var reasons []string
	for _, t := range r.Totals() {
		open := t.Count - t.Waived
		if open == 0 {
			continue
		}
		if t.Rule.ID == IncompleteRule {
			reasons = append(reasons, fmt.Sprintf("%s: %d collections incomplete; the other rules are not trusted", t.Rule.ID, open))
			continue
		}
		th, ok := m.Rules[t.Rule.ID]
		if !ok {
			th = m.Severities[t.Rule.Severity]
		}
		if th.Count > 0 && open >= th.Count {
			reasons = append(reasons, fmt.Sprintf("%s (%s): %d unwaived findings, threshold %d", t.Rule.ID, t.Rule.Severity, open, th.Count))
			continue
		}
		if limit, err := money.Parse(th.Amount); err == nil && th.Amount != "" {
			if cur, at := largest(t.AtStake); at >= limit {
				reasons = append(reasons, fmt.Sprintf("%s (%s): %s %s at stake, threshold %s", t.Rule.ID, t.Rule.Severity, at, cur, limit))
			}
		}
	}
	return reasons
}

// largest is the currency with the largest amount.
func largest(per map[string]money.Amount) (string, money.Amount) {
	var best string
	var top money.Amount = -1
	for _, cur := range Currencies(per) {
		if a := per[cur]; a > top {
			best, top = cur, a
		}
	}
	return best, top
}
