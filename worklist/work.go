package worklist

import (
	"encoding/json"
	"io"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reports"
)

// Work is a finding's work: to whom it is assigned and by when (null:
// nobody's), how old it is at its reconciliation, and whether it is late
// then, and how many comments its thread holds.
type Work struct {
	Assignee *string `json:"assignee"`
	Due      *string `json:"due"` // YYYY-MM-DD
	AgeDays  int     `json:"age_days"`
	Overdue  bool    `json:"overdue"`
	Comments int     `json:"comments"`
	// ResolutionCode is the reason code of the resolution recorded for
	// it in the workspace (null: none).
	ResolutionCode *string `json:"resolution_code"`
}

// Finding is a finding as the JSON outputs with work give it: the object
// of the reports' JSON, and its work.
type Finding struct {
	reports.FindingJSON
	Work
}

// Reading is what the work of a reconciliation's findings is read from:
// the assignments standing in the ledger and its comments' threads
// (whatever reconciliation a finding is of), when each snapshot started,
// and the reconciliation's as-of moment.
type Reading struct {
	Assigned map[ledger.AssignKey]ledger.Assigned
	Threads  map[ledger.AssignKey][]ledger.Commented
	Resolved map[ledger.AssignKey]ledger.Resolved
	// Codes are the reason codes of the waivers made in the workspace,
	// by their ID.
	Codes   map[string]string
	Started map[string]time.Time
	AsOf    time.Time
}

// Of is f's work: its resolution's code, its age from the start of the snapshot it was first
// seen in; overdue when assigned, its due day wholly passed at AsOf, and
// it is neither resolved nor waived.
func (rd Reading) Of(f findings.Finding) Work {
	k := ledger.AssignKey{Rule: f.Rule, EntityID: f.EntityID}
	w := Work{AgeDays: AgeDays(rd.Started[f.FirstSeen], rd.AsOf), Comments: len(rd.Threads[k])}
	if x, ok := rd.Resolved[k]; ok {
		w.ResolutionCode = &x.ReasonCode
	}
	if a, ok := rd.Assigned[k]; ok {
		w.Assignee, w.Due = &a.Assignee, &a.Due
		w.Overdue = f.Status != findings.StatusResolved && f.Waiver == nil && Overdue(a.Due, rd.AsOf)
	}
	return w
}

// AssigneeOf is f's assignee, "" when nobody's.
func (rd Reading) AssigneeOf(f findings.Finding) string {
	return rd.Assigned[ledger.AssignKey{Rule: f.Rule, EntityID: f.EntityID}].Assignee
}

// Objects are rep's findings, in its order, each with its work.
func Objects(rep *findings.Report, rd Reading) []Finding {
	objs := reports.Objects(rep)
	out := make([]Finding, len(objs))
	for i, o := range objs {
		out[i] = Finding{FindingJSON: o, Work: rd.Of(rep.Findings[i])}
	}
	return out
}

// JSONLines writes rep's findings with their work, one JSON object a
// line, as reports.JSONLines writes them without.
func JSONLines(w io.Writer, rep *findings.Report, rd Reading) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, o := range Objects(rep, rd) {
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return nil
}

// Read is the work of a reconciliation as of asOf: the assignments
// standing after entries (the ledger's), their threads of comments, their
// resolutions and the reason codes of the waivers made in the workspace,
// and started, when each snapshot began (the store's read model gives
// them: readmodel.SnapshotStarts).
func Read(entries []ledger.Entry, started map[string]time.Time, asOf time.Time) Reading {
	rd := Reading{Assigned: ledger.Assignments(entries), Threads: ledger.Comments(entries), Resolved: ledger.Resolutions(entries),
		Codes: map[string]string{}, Started: started, AsOf: asOf}
	for _, w := range ledger.Fold(entries).Waivers {
		rd.Codes[w.ID] = w.ReasonCode
	}
	return rd
}

// ForReports is the work of findings as the reports show it: assignee,
// due date, overdue and the thread of comments.
func (rd Reading) ForReports() reports.WorkOf {
	return func(f findings.Finding) reports.FindingWork {
		w := rd.Of(f)
		out := reports.FindingWork{Overdue: w.Overdue, Comments: rd.Threads[ledger.AssignKey{Rule: f.Rule, EntityID: f.EntityID}]}
		if w.Assignee != nil {
			out.Assignee, out.Due = *w.Assignee, *w.Due
		}
		if w.ResolutionCode != nil {
			out.Resolution = *w.ResolutionCode
		}
		return out
	}
}

// Coded gives the findings of fs waived in the workspace their waiver's
// reason code, as the ledger records it (a stored reconciliation keeps
// the waiver's ID, not its code). Each waiver is copied, never changed
// in place.
func (rd Reading) Coded(fs []findings.Finding) {
	for i, f := range fs {
		if w := f.Waiver; w != nil && w.ID != "" && w.ReasonCode == "" && rd.Codes[w.ID] != "" {
			c := *w
			c.ReasonCode = rd.Codes[w.ID]
			fs[i].Waiver = &c
		}
	}
}
