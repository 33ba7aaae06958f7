package findings

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/billsnap/billsnap/money"
)

// Finding statuses against the previous complete snapshot.
const (
	StatusNew       = "new"
	StatusRecurring = "recurring"
	StatusResolved  = "resolved" // its key was found before and is not now
)

// Finding is one record a rule found, with its history and waiver.
type Finding struct {
	Rule      string
	Severity  string
	Entity    string
	EntityID  string
	Amount    money.Amount // positive: not collected or owed to us; negative: overbilled or owed back
	Currency  string       // "" when the rule gives none (snapshot_incomplete)
	Detail    string
	Status    string
	FirstSeen string  // the snapshot it was first seen in
	Waiver    *Waiver // the active waiver that covers it, if any
	// Live is what billsnap recheck last found of it in the service
	// (confirmed, changed or gone), and when; "" when never rechecked.
	Live      string
	CheckedAt time.Time
	// CustomerID and CustomerName are the customer of the record it
	// names, InvoiceNumber its invoice's number (an invoice's, a line's, a
	// payment's); "" when it has none or it was not found (Customer).
	CustomerID, CustomerName, InvoiceNumber string
}

// SnapshotInfo describes the snapshot reconciled.
type SnapshotInfo struct {
	ID       string
	Status   string
	Started  time.Time
	Finished time.Time
}

// Report is the outcome of a reconciliation.
type Report struct {
	Snapshot       SnapshotInfo
	Previous       string // the previous complete snapshot (rule 15, history); "" when there is none
	AsOf           time.Time
	Period         *Period
	Rules          []Rule
	Findings       []Finding // in rule order: this snapshot's, then the resolved ones
	ExpiredWaivers []Waiver  // waivers that no longer apply
	Untrusted      bool      // snapshot_incomplete fired: the other rules are not trusted
	Material       []string  // why the run is material; empty when it is not
	// Unjudged is what values that arrived untyped kept each rule from
	// judging, HeldBack the findings each rule did not raise for it, and
	// Unguarded the rules (a user's) that do not say what such values keep
	// them from judging, when the snapshot has any.
	Unjudged  []Unjudged
	HeldBack  map[string]int
	Unguarded []string
	NotJudged map[string]int // records each rule did not judge, all fields together
}

// UnjudgedBy is what values that arrived untyped kept rule from judging.
func (r *Report) UnjudgedBy(rule string) []Unjudged {
	var out []Unjudged
	for _, u := range r.Unjudged {
		if u.Rule == rule {
			out = append(out, u)
		}
	}
	return out
}

// RuleTotal is a rule's figures in a report.
type RuleTotal struct {
	Rule                             Rule
	Count                            int // findings of this snapshot, waived included
	Waived, New, Recurring, Resolved int
	Amounts                          map[string]money.Amount // unwaived findings of this snapshot, per currency
	AtStake                          map[string]money.Amount // the same, of absolute amounts
	NotJudged, HeldBack              int                     // records not judged, and findings held back, for untyped values
}

// Totals are the figures of every rule that ran, in rule order.
func (r *Report) Totals() []RuleTotal {
	out := make([]RuleTotal, len(r.Rules))
	index := map[string]int{}
	for i, rule := range r.Rules {
		out[i] = RuleTotal{Rule: rule, Amounts: map[string]money.Amount{}, AtStake: map[string]money.Amount{},
			NotJudged: r.NotJudged[rule.ID], HeldBack: r.HeldBack[rule.ID]}
		index[rule.ID] = i
	}
	for _, f := range r.Findings {
		t := &out[index[f.Rule]]
		switch {
		case f.Status == StatusResolved:
			t.Resolved++
			continue
		case f.Status == StatusNew:
			t.New++
		default:
			t.Recurring++
		}
		t.Count++
		if f.Waiver != nil {
			t.Waived++
			continue
		}
		t.Amounts[f.Currency] += f.Amount
		t.AtStake[f.Currency] += f.Amount.Abs()
	}
	return out
}

// CurrencyTotal is what the unwaived findings in one currency come to. Net
// adds their signed amounts, so money not invoiced and money invoiced twice
// offset each other; Gross adds their absolute amounts: all the money in
// question.
type CurrencyTotal struct{ Net, Gross money.Amount }

// CurrencyTotals sums every rule's unwaived findings per currency, net and
// gross.
func (r *Report) CurrencyTotals() map[string]CurrencyTotal {
	out := map[string]CurrencyTotal{}
	for _, t := range r.Totals() {
		for c, a := range t.Amounts {
			ct := out[c]
			ct.Net += a
			ct.Gross += t.AtStake[c]
			out[c] = ct
		}
	}
	return out
}

// Currencies lists the currencies of a per-currency map, sorted.
func Currencies[V any](m map[string]V) []string {
	cs := make([]string, 0, len(m))
	for c := range m {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	return cs
}

// Open is the findings of this snapshot (not the resolved ones), the
// waived included: what a sign-off's digest covers. Of them, the open
// findings are those not waived (OpenCount).
func (r *Report) Open() []Finding {
	return slices.DeleteFunc(slices.Clone(r.Findings), func(f Finding) bool { return f.Status == StatusResolved })
}

// IsOpen tells whether f is an open finding: of this snapshot (not
// resolved) and not waived, material or not. It is the one definition
// of "open" every count of open findings uses: the workspace's overview,
// rules table, sign-off and close, the reports, the run's record that
// billsnap status shows.
func (f Finding) IsOpen() bool { return f.Status != StatusResolved && f.Waiver == nil }

// OpenCount is the number of r's open findings (IsOpen).
func (r *Report) OpenCount() int {
	n := 0
	for _, f := range r.Findings {
		if f.IsOpen() {
			n++
		}
	}
	return n
}

// Digest is the SHA-256 (hex) of the open findings, as sorted lines of
// rule, record ID, amount, currency and whether waived, tab-separated, and
// how many there are: what a sign-off signs. Neither the findings' order
// nor anything else of the report changes it.
func (r *Report) Digest() (string, int) {
	lines := make([]string, 0, len(r.Findings))
	for _, f := range r.Open() {
		lines = append(lines, strings.Join([]string{f.Rule, f.EntityID, f.Amount.String(), f.Currency, strconv.FormatBool(f.Waiver != nil)}, "\t"))
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)), len(lines)
}
