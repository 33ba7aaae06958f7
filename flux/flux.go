// Package flux is the month-over-month review of a period (docs/flux.md):
// each measure of the business (billed, collected, credited, open
// receivables, money at risk) per currency, this period against the month
// before, and whether its change is over the threshold that asks for an
// explanation before the period is signed off.
//
// [Options] are the threshold, the configuration's flux key, validated
// here. [Lines] makes each measure's line per currency, exactly, with no
// floating point. [Explain] gives the lines the ledger's explanations,
// current or stale; [Unexplained] is what still needs one.
//
// Data and pure functions, no SQL: the workspace reads the figures
// (snapshot/readmodel's FiguresOf) and the ledger, and hands them here.
package flux

import (
	"errors"
	"math/big"
	"slices"

	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/money"
)

// The measures of a period, in the order lines are listed.
const (
	Billed          = "billed"           // invoices' TotalAmount, by their InvoiceDate in the period
	Collected       = "collected"        // settled payments, by their TransactionDate in the period
	Credited        = "credited"         // settled refunds, by their TransactionDate in the period
	OpenReceivables = "open_receivables" // invoices dated by the period's end and not paid by it
	MoneyAtRisk     = "money_at_risk"    // gross of the open, unwaived findings of the period's reconciliation
)

// Measures are the measures, in their order.
func Measures() []string {
	return []string{Billed, Collected, Credited, OpenReceivables, MoneyAtRisk}
}

// Options are the threshold over which a line asks for an explanation
// (the configuration's flux key): both its change of at least Amount and
// its change of at least Percent per cent of the month before.
type Options struct {
	Percent string `yaml:"percent" json:"percent"` // a decimal with at most two decimals: 10, 12.5
	Amount  string `yaml:"amount" json:"amount"`   // money: 1000.00
}

// DefaultOptions are 10 per cent and 1,000.00.
func DefaultOptions() Options { return Options{Percent: "10", Amount: "1000.00"} }

// Validate names each key of o that is not a number of at most two
// decimals, or is negative (keys relative to flux).
func (o Options) Validate() error {
	var errs []error
	if p, err := money.Parse(o.Percent); err != nil || p < 0 {
		errs = append(errs, configkey.Errorf("percent", "must be a number of per cent such as 10 or 12.5, not %q", o.Percent))
	}
	if a, err := money.Parse(o.Amount); err != nil || a < 0 {
		errs = append(errs, configkey.Errorf("amount", "must be an amount such as 1000.00, not %q", o.Amount))
	}
	return errors.Join(errs...)
}

// threshold is o's percent in hundredths of a per cent and its amount;
// an option that does not parse (Validate refuses it) counts as 0.
func (o Options) threshold() (pct int64, amount money.Amount) {
	p, _ := money.Parse(o.Percent)
	a, _ := money.Parse(o.Amount)
	return int64(p), a
}

// Figures are one measure's amounts, per currency.
type Figures map[string]money.Amount

// Line is one measure in one currency: the month before, this period, the
// change, and whether it is over the threshold. Explanation is the
// explanation that stands for it: a current one (its figures are the
// line's), else the newest one given, stale; nil when there is none.
type Line struct {
	Measure, Currency         string
	Previous, Current, Change money.Amount
	ChangePct                 string // the change in per cent of Previous, two decimals; "" when Previous is 0
	Over                      bool
	Explanation               *ledger.Explained
	Stale                     bool // Explanation was given for other figures: it no longer counts
}

// Explained tells whether the line needs no more explanation: it is not
// over the threshold, or a current explanation stands for it.
func (l Line) Explained() bool { return !l.Over || (l.Explanation != nil && !l.Stale) }

// Lines compares each measure's figures of this period (cur) with the
// month before (prev), a line for each currency either has, measures in
// their order and currencies sorted; a currency with nothing in either
// month has no line.
func Lines(o Options, prev, cur map[string]Figures) []Line {
	var out []Line
	for _, m := range Measures() {
		var curs []string
		for c, a := range prev[m] {
			if a != 0 || cur[m][c] != 0 {
				curs = append(curs, c)
			}
		}
		for c, a := range cur[m] {
			if a != 0 && prev[m][c] == 0 {
				curs = append(curs, c)
			}
		}
		slices.Sort(curs)
		for _, c := range slices.Compact(curs) {
			out = append(out, o.Line(m, c, prev[m][c], cur[m][c]))
		}
	}
	return out
}

// Line is measure m in currency c, from prev to cur. It is over the
// threshold when it changed, its change is at least the amount, and at
// least the percent of prev (any change from 0 is).
func (o Options) Line(m, c string, prev, cur money.Amount) Line {
	l := Line{Measure: m, Currency: c, Previous: prev, Current: cur, Change: cur - prev}
	pct, amount := o.threshold()
	change := big.NewInt(int64(l.Change.Abs()))
	if prev != 0 {
		l.ChangePct = new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(int64(l.Change)), big.NewInt(100)), big.NewInt(int64(prev))).FloatString(2)
	}
	byPct := prev == 0 || new(big.Int).Mul(change, big.NewInt(10000)).Cmp(new(big.Int).Mul(big.NewInt(pct), big.NewInt(int64(prev.Abs())))) >= 0
	l.Over = l.Change != 0 && l.Change.Abs() >= amount && byPct
	return l
}

// Explain gives each line of period its explanation among xs (the
// ledger's, oldest first): the newest one of its measure and currency
// given for its figures, else the newest one given for other figures,
// marked stale.
func Explain(lines []Line, period string, xs []ledger.Explained) {
	for i := range lines {
		l := &lines[i]
		for _, x := range slices.Backward(xs) {
			if x.Period != period || x.Measure != l.Measure || x.Currency != l.Currency {
				continue
			}
			current := x.Previous == l.Previous.String() && x.Current == l.Current.String()
			if current || l.Explanation == nil {
				l.Explanation, l.Stale = &x, !current
			}
			if current {
				break
			}
		}
	}
}

// Unexplained are the lines over the threshold with no current
// explanation.
func Unexplained(lines []Line) []Line {
	var out []Line
	for _, l := range lines {
		if !l.Explained() {
			out = append(out, l)
		}
	}
	return out
}

// Find is the line of measure m in currency c.
func Find(lines []Line, m, c string) (Line, bool) {
	i := slices.IndexFunc(lines, func(l Line) bool { return l.Measure == m && l.Currency == c })
	if i < 0 {
		return Line{}, false
	}
	return lines[i], true
}

// Known tells whether m is a measure.
func Known(m string) bool { return slices.Contains(Measures(), m) }
