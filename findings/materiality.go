package findings

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/money"
)

// Materiality says when unwaived findings make a run exit 3: per rule,
// else per severity. A rule or severity without a threshold never does.
// It is the reconcile.materiality key of the configuration.
type Materiality struct {
	Severities map[string]Threshold `yaml:"severities"`
	Rules      map[string]Threshold `yaml:"rules"`
}

// Threshold is material at Count findings or more (0: not by count), or
// when one currency's total of absolute amounts reaches Amount ("": not by
// amount).
type Threshold struct {
	Count  int    `yaml:"count"`
	Amount string `yaml:"amount"`
}

// severities are the severities of the rules, gravest first.
var severities = []string{"critical", "high", "medium", "low"}

// Severities returns the severities of the rules, gravest first.
func Severities() []string { return slices.Clone(severities) }

// DefaultMateriality makes any critical or high finding material.
func DefaultMateriality() Materiality {
	return Materiality{Severities: map[string]Threshold{"critical": {Count: 1}, "high": {Count: 1}}, Rules: map[string]Threshold{}}
}

// Validate returns every problem of m that needs no rule to see, each a
// *configkey.Error whose key is relative to m's (an unknown severity, a
// negative count, an amount that is not one); reconcile's Options.Check
// refuses thresholds of rules that do not exist.
func (m Materiality) Validate() error {
	var errs []error
	for _, sev := range slices.Sorted(maps.Keys(m.Severities)) {
		if !slices.Contains(severities, sev) {
			errs = append(errs, configkey.Errorf("severities."+sev, "unknown severity; known: %s", strings.Join(severities, ", ")))
		}
		errs = append(errs, m.Severities[sev].validate("severities."+sev))
	}
	for _, rule := range slices.Sorted(maps.Keys(m.Rules)) {
		errs = append(errs, m.Rules[rule].validate("rules."+rule))
	}
	return errors.Join(errs...)
}

// validate checks a threshold under key.
func (th Threshold) validate(key string) error {
	var errs []error
	if th.Count < 0 {
		errs = append(errs, configkey.Errorf(key+".count", "must not be negative"))
	}
	if th.Amount != "" {
		if a, err := money.Parse(th.Amount); err != nil || a < 0 {
			errs = append(errs, configkey.Errorf(key+".amount", "must be an amount such as 100.00, not %q", th.Amount))
		}
	}
	return errors.Join(errs...)
}

// Judge says why r's unwaived findings are material under m: per rule,
// its own threshold, else its severity's. snapshot_incomplete is always
// material. Each reason begins with its rule's ID (MaterialRules).
func (r *Report) Judge(m Materiality) []string {
	var reasons []string
	for _, t := range r.Totals() {
		open := t.Count - t.Waived
		if open == 0 {
			continue
		}
		if t.Rule.ID == IncompleteRule {
			reasons = append(reasons, fmt.Sprintf("%s: %s incomplete; the other rules are not trusted", t.Rule.ID, plural.Of(open, "collection")))
			continue
		}
		th, ok := m.Rules[t.Rule.ID]
		if !ok {
			th = m.Severities[t.Rule.Severity]
		}
		if th.Count > 0 && open >= th.Count {
			reasons = append(reasons, fmt.Sprintf("%s (%s): %s, threshold %d", t.Rule.ID, t.Rule.Severity, plural.Of(open, "unwaived finding"), th.Count))
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

// MaterialRules are the IDs of the rules r.Material names, in its order.
func (r *Report) MaterialRules() []string {
	out := make([]string, 0, len(r.Material))
	for _, reason := range r.Material {
		id, _, _ := strings.Cut(reason, " ")
		out = append(out, strings.TrimSuffix(id, ":"))
	}
	return out
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

// StillMaterial judges r's materiality without the findings a recheck
// found changed or gone in the service.
func (r *Report) StillMaterial(m Materiality) []string {
	still := *r
	still.Findings = slices.DeleteFunc(slices.Clone(r.Findings), func(f Finding) bool { return f.Live == "changed" || f.Live == "gone" })
	return still.Judge(m)
}
