package notify

import (
	"context"
	"fmt"
	"slices"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
)

// OverdueFinding is an assigned finding whose due day has wholly passed.
type OverdueFinding struct {
	Rule     string `json:"rule"`
	Entity   string `json:"entity"`
	EntityID string `json:"entity_id"`
	Assignee string `json:"assignee"`
	Due      string `json:"due"` // YYYY-MM-DD
	Amount   string `json:"amount"`
	Currency string `json:"currency,omitempty"`
}

// overdueKey is how the record knows an overdue finding told: the finding
// and its due date, so that a finding given a new due date that passes
// too is told again.
func overdueKey(f findings.Finding, due string) string { return key(f) + "@" + due }

// lateOf are the open findings of rep (neither resolved nor waived)
// assigned in the store's ledger and overdue at rep's as-of moment, in
// rep's order.
func (n *Notifier) lateOf(rep *findings.Report) ([]OverdueFinding, []string, error) {
	entries, err := ledger.New(layout.Dir(n.w.Out).Ledger(), n.w.Now).Read()
	if err != nil {
		return nil, nil, err
	}
	assigned := ledger.Assignments(entries)
	var late []OverdueFinding
	var keys []string
	for _, f := range rep.Findings {
		a, ok := assigned[ledger.AssignKey{Rule: f.Rule, EntityID: f.EntityID}]
		if !ok || !f.IsOpen() || !a.LateAt(rep.AsOf) {
			continue
		}
		late = append(late, OverdueFinding{Rule: f.Rule, Entity: f.Entity, EntityID: f.EntityID, Assignee: a.Assignee, Due: a.Due,
			Amount: f.Amount.String(), Currency: f.Currency})
		keys = append(keys, overdueKey(f, a.Due))
	}
	return late, keys, nil
}

// overdue tells each target that takes the event of the findings of rep
// overdue that it was not told of (once per finding and due date); the
// record of the deliveries keeps what was told.
func (n *Notifier) overdue(ctx context.Context, run journal.Run, rep *findings.Report) {
	if !slices.ContainsFunc(n.targets, func(t target) bool { return slices.Contains(t.on, Overdue) }) {
		return
	}
	late, keys, err := n.lateOf(rep)
	if err != nil {
		n.w.Log.Warn("notifications: reading the ledger's assignments", "error", err)
		return
	}
	past, err := n.record.List()
	if err != nil || len(late) == 0 {
		return
	}
	for _, t := range n.targets {
		if !slices.Contains(t.on, Overdue) {
			continue
		}
		told := journal.Overdue(past, t.name)
		var fresh []OverdueFinding
		var freshKeys []string
		for i, k := range keys {
			if !told[k] {
				fresh, freshKeys = append(fresh, late[i]), append(freshKeys, k)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		m := Message{Event: Overdue, Job: run.Job, Schedule: run.Schedule, RunID: run.ID, ExitCode: run.ExitCode, SnapshotID: rep.Snapshot.ID,
			Period: rep.Period.String(), OverdueFindings: fresh,
			Summary: fmt.Sprintf("billsnap: %d assigned findings overdue in snapshot %s", len(fresh), rep.Snapshot.ID)}
		if len(fresh) == 1 {
			m.Summary = fmt.Sprintf("billsnap: a finding assigned to %s was due %s: %s %s", fresh[0].Assignee, fresh[0].Due, fresh[0].Rule, fresh[0].EntityID)
		}
		n.deliver(ctx, t, n.where(m), rep.Snapshot.ID, freshKeys)
	}
}
