package reports

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/money"
)

// FindingWork is what the workspace's ledger adds to a finding a report
// lists: to whom it is assigned and by when ("" when nobody's), whether
// it is late at its reconciliation, its thread of comments and how it was
// resolved.
type FindingWork struct {
	Assignee, Due string
	Overdue       bool
	Comments      []ledger.Commented
	Resolution    string // the reason code of the resolution recorded for it; "" for none
}

// WorkOf gives a finding's work (package worklist makes one from the
// ledger); a nil WorkOf is no work: every finding nobody's, no comment.
type WorkOf func(findings.Finding) FindingWork

// of is f's work; none for a nil WorkOf.
func (w WorkOf) of(f findings.Finding) FindingWork {
	if w == nil {
		return FindingWork{}
	}
	return w(f)
}

// workCells are the cells the CSV and the XLSX give f's work: its
// waiver's reason code, assignee, due date, overdue, its comments as
// text (threadText) and its resolution's reason code.
func (w WorkOf) workCells(f findings.Finding) (code, assignee, due, overdue, comments, resolution string) {
	wk := w.of(f)
	if f.Waiver != nil {
		code = f.Waiver.ReasonCode
	}
	if wk.Assignee != "" {
		overdue = strconv.FormatBool(wk.Overdue)
	}
	return code, wk.Assignee, wk.Due, overdue, threadText(wk.Comments), wk.Resolution
}

// threadText is a thread as one cell: each comment on its own line,
// "who, when: text", oldest first.
func threadText(cs []ledger.Commented) string {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = fmt.Sprintf("%s, %s: %s", c.By, c.At.UTC().Format(timeFormat), c.Text)
	}
	return strings.Join(lines, "\n")
}

// NoCode is how the reports name the waivers that give no reason code.
const NoCode = "(no code)"

// ReasonTotal is the waived findings (not resolved) of one reason code:
// how many, and their money per currency, net and gross.
type ReasonTotal struct {
	Code       string
	Count      int
	Net, Gross map[string]money.Amount
}

// WaivedByReason totals the waived findings of the report that are not
// resolved by their waiver's reason code (NoCode for none), by code,
// NoCode last.
func (in *Input) WaivedByReason() []ReasonTotal {
	by := map[string]*ReasonTotal{}
	for _, f := range in.Report.Findings {
		if f.Waiver == nil || f.Status == findings.StatusResolved {
			continue
		}
		code := cmp.Or(f.Waiver.ReasonCode, NoCode)
		t := by[code]
		if t == nil {
			t = &ReasonTotal{Code: code, Net: map[string]money.Amount{}, Gross: map[string]money.Amount{}}
			by[code] = t
		}
		t.Count++
		if f.Currency != "" {
			t.Net[f.Currency] += f.Amount
			t.Gross[f.Currency] += f.Amount.Abs()
		}
	}
	out := make([]ReasonTotal, 0, len(by))
	for _, code := range slices.Sorted(maps.Keys(by)) {
		if code != NoCode {
			out = append(out, *by[code])
		}
	}
	if t, ok := by[NoCode]; ok {
		out = append(out, *t)
	}
	return out
}

// Text is the line a report gives a reason's total: its findings and,
// per currency, net and gross.
func (t ReasonTotal) Text() string {
	parts := []string{plural.Of(t.Count, "waived finding")}
	for _, cur := range findings.Currencies(t.Net) {
		text := fmt.Sprintf("net %s, gross %s", t.Net[cur], t.Gross[cur])
		if t.Gross[cur] == 0 {
			text = findings.NoMoney
		}
		parts = append(parts, currencyLabel(cur)+" "+text)
	}
	return t.Code + ": " + strings.Join(parts, "; ")
}

// Assigned are the open findings of the report (neither resolved nor
// waived) that are assigned, each with its work, in the report's order.
func (in *Input) Assigned() []AssignedFinding {
	var out []AssignedFinding
	for _, f := range in.Report.Findings {
		if w := in.Work.of(f); f.IsOpen() && w.Assignee != "" {
			out = append(out, AssignedFinding{Finding: f, Work: w})
		}
	}
	return out
}

// AssignedFinding is an open finding and its work.
type AssignedFinding struct {
	findings.Finding
	Work FindingWork
}

// WorkFor is f's work (none without Work), for the HTML report.
func (in *Input) WorkFor(f findings.Finding) FindingWork { return in.Work.of(f) }
