package notify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/snip"
	"github.com/billsnap/billsnap/money"
)

// Message is what a notification says; its JSON is the json format's body
// (docs/notifications.md).
type Message struct {
	Event            string        `json:"event"` // material, failure, stale, resolved, overdue, test
	Job              string        `json:"job,omitempty"`
	Schedule         string        `json:"schedule,omitempty"`
	RunID            string        `json:"run_id,omitempty"`
	SnapshotID       string        `json:"snapshot_id,omitempty"`
	Period           string        `json:"period,omitempty"`
	ExitCode         int           `json:"exit_code"`
	Summary          string        `json:"summary"` // one line for people
	Rules            []RuleSummary `json:"rules,omitempty"`
	TopFindings      []TopFinding  `json:"top_findings,omitempty"`
	NewFindings      int           `json:"new_findings,omitempty"`
	ResolvedFindings int           `json:"resolved_findings,omitempty"`
	// OverdueFindings are the findings an overdue event is about.
	OverdueFindings []OverdueFinding `json:"overdue_findings,omitempty"`
	Error           string           `json:"error,omitempty"`
	Report          string           `json:"report,omitempty"`    // the reports' directory
	Workspace       string           `json:"workspace,omitempty"` // the finance workspace
	Time            time.Time        `json:"time"`
}

// RuleSummary is a material rule: its unwaived findings and what they
// come to per currency.
type RuleSummary struct {
	Rule     string             `json:"rule"`
	Severity string             `json:"severity"`
	Count    int                `json:"count"`
	Amounts  map[string]Amounts `json:"amounts"`
}

// Amounts are net (signed amounts added) and gross (absolute amounts
// added), as decimal strings.
type Amounts struct {
	Net   string `json:"net"`
	Gross string `json:"gross"`
}

// TopFinding is one of the largest new findings.
type TopFinding struct {
	Rule     string `json:"rule"`
	Entity   string `json:"entity"`
	EntityID string `json:"entity_id"`
	Amount   string `json:"amount"`
	Currency string `json:"currency,omitempty"`
	Detail   string `json:"detail"`
}

// key is what makes two findings the same across snapshots.
func key(f findings.Finding) string { return f.Rule + "/" + f.Entity + "/" + f.EntityID }

// materialFindings are the open (unwaived) findings of the rules that made
// r material.
func materialFindings(r *findings.Report) []findings.Finding {
	rules := r.MaterialRules()
	var out []findings.Finding
	for _, f := range r.Findings {
		if f.Status != findings.StatusResolved && f.Waiver == nil && slices.Contains(rules, f.Rule) {
			out = append(out, f)
		}
	}
	return out
}

// materialMessage says what is material in r, and which of its findings
// are new to the target (fresh).
func materialMessage(r *findings.Report, fresh []findings.Finding) Message {
	m := Message{Event: Material, SnapshotID: r.Snapshot.ID, Period: r.Period.String(), NewFindings: len(fresh)}
	rules := r.MaterialRules()
	for _, t := range r.Totals() {
		if !slices.Contains(rules, t.Rule.ID) {
			continue
		}
		rs := RuleSummary{Rule: t.Rule.ID, Severity: t.Rule.Severity, Count: t.Count - t.Waived, Amounts: map[string]Amounts{}}
		for cur, net := range t.Amounts {
			rs.Amounts[cur] = Amounts{Net: net.String(), Gross: t.AtStake[cur].String()}
		}
		m.Rules = append(m.Rules, rs)
	}
	top := slices.Clone(fresh)
	slices.SortStableFunc(top, func(a, b findings.Finding) int { return cmp.Compare(b.Amount.Abs(), a.Amount.Abs()) })
	for _, f := range top[:min(5, len(top))] {
		m.TopFindings = append(m.TopFindings, TopFinding{Rule: f.Rule, Entity: f.Entity, EntityID: f.EntityID,
			Amount: f.Amount.String(), Currency: f.Currency, Detail: f.Detail})
	}
	m.Summary = fmt.Sprintf("billsnap: material findings in snapshot %s: %d new, in %s", m.SnapshotID, len(fresh), ruleList(m.Rules))
	return m
}

func ruleList(rs []RuleSummary) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s (%d)", r.Rule, r.Count)
	}
	return strings.Join(parts, ", ")
}

// noMoney tells whether an amount of the message (a decimal string) is
// 0: findings that carry no money, which text shows as findings.NoMoney.
func noMoney(amount string) bool {
	a, err := money.Parse(amount)
	return err == nil && a == 0
}

// Bounds of what a message quotes, in bytes as JSON writes it: a value
// longer is cut to a snippet that states its length (snip.JSON), so that
// no line of a body, the deliveries' record or a mail is longer than
// snip.Line.
const (
	errorLen   = 1024 // Error
	summaryLen = 512  // Summary, and the paths
	valueLen   = 256  // what a finding or a rule says: its IDs, detail, amount
)

// bounded is m with every value it quotes cut to its bound.
func (m Message) bounded() Message {
	m.Error, m.Summary = snip.JSON(m.Error, errorLen), snip.JSON(m.Summary, summaryLen)
	m.Report, m.Workspace = snip.JSON(m.Report, summaryLen), snip.JSON(m.Workspace, summaryLen)
	for _, p := range []*string{&m.Job, &m.Schedule, &m.RunID, &m.SnapshotID, &m.Period} {
		*p = snip.JSON(*p, valueLen)
	}
	m.Rules = slices.Clone(m.Rules)
	for i, r := range m.Rules {
		r.Rule, r.Severity = snip.JSON(r.Rule, valueLen), snip.JSON(r.Severity, valueLen)
		m.Rules[i] = r
	}
	m.TopFindings = slices.Clone(m.TopFindings)
	for i, f := range m.TopFindings {
		for _, p := range []*string{&f.Rule, &f.Entity, &f.EntityID, &f.Amount, &f.Currency, &f.Detail} {
			*p = snip.JSON(*p, valueLen)
		}
		m.TopFindings[i] = f
	}
	return m
}

// text is the message for people: the body of an email, the text of a
// chat message.
func (m Message) text() string {
	var b strings.Builder
	fmt.Fprintln(&b, m.Summary)
	line := func(label, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", label, v)
		}
	}
	line("Job", strings.TrimSpace(m.Job+" "+m.Schedule))
	line("Snapshot", m.SnapshotID)
	line("Period", m.Period)
	if m.Event == Failure {
		line("Exit code", fmt.Sprint(m.ExitCode))
	}
	line("Error", m.Error)
	for _, r := range m.Rules {
		fmt.Fprintf(&b, "- %s (%s): %s", r.Rule, r.Severity, plural.Of(r.Count, "finding"))
		for _, cur := range findings.Currencies(r.Amounts) {
			switch a := r.Amounts[cur]; {
			case !noMoney(a.Gross):
				fmt.Fprintf(&b, "; %s net %s, gross %s", cur, a.Net, a.Gross)
			case cur != "":
				fmt.Fprintf(&b, "; %s %s", cur, findings.NoMoney)
			}
		}
		fmt.Fprintln(&b)
	}
	if len(m.TopFindings) > 0 {
		fmt.Fprintln(&b, "Largest new findings:")
		for _, f := range m.TopFindings {
			amount := f.Amount
			if noMoney(amount) {
				amount = findings.NoMoney
			}
			fmt.Fprintf(&b, "- %s %s %s: %s %s — %s\n", f.Rule, f.Entity, f.EntityID, amount, f.Currency, f.Detail)
		}
	}
	for _, f := range m.OverdueFindings {
		amount := f.Amount
		if noMoney(amount) {
			amount = findings.NoMoney
		}
		fmt.Fprintf(&b, "- %s %s %s, assigned to %s, due %s: %s %s\n", f.Rule, f.Entity, f.EntityID, f.Assignee, f.Due, amount, f.Currency)
	}
	line("Reports", m.Report)
	line("Workspace", m.Workspace)
	return b.String()
}
