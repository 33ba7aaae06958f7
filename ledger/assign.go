package ledger

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// ActAssign is an entry that assigns findings.
const ActAssign = "assign"

// Assignment gives the finding of a rule about a record (known so across
// reconciliations) to a user, due by a day. A later assignment of the
// same finding replaces it.
type Assignment struct {
	Rule     string `json:"rule"`
	EntityID string `json:"entity_id"`
	Assignee string `json:"assignee"`
	Due      string `json:"due"` // YYYY-MM-DD
}

// LateAt tells whether the assignment is late at asOf: the whole of its
// due day (UTC) has passed. A due date that does not read is never late.
func (a Assignment) LateAt(asOf time.Time) bool {
	d, err := time.Parse(time.DateOnly, a.Due)
	return err == nil && !asOf.Before(d.AddDate(0, 0, 1))
}

// Assigned is the assignment that stands for a finding, with who made it
// and when.
type Assigned struct {
	Assignment
	By string
	At time.Time
}

// AssignKey is how a finding is known across reconciliations: its rule
// and its record's ID.
type AssignKey struct{ Rule, EntityID string }

// Check reports what makes an assignment unfit to record: a missing
// field, a due date that is not one, a control character in a name, text
// too long.
func (a Assignment) Check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"rule", a.Rule}, {"entity_id", a.EntityID}, {"assignee", a.Assignee}, {"due", a.Due}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return invalid("assignment: %s required", strings.Join(missing, ", "))
	}
	if _, err := time.Parse(time.DateOnly, a.Due); err != nil {
		return invalid("assignment: due %q: want a date as YYYY-MM-DD", a.Due)
	}
	if strings.IndexFunc(a.Assignee, unicode.IsControl) >= 0 {
		return invalid("assignment: assignee: a control character")
	}
	return checkLengths(map[string]string{"rule": a.Rule, "entity_id": a.EntityID, "assignee": a.Assignee})
}

// Assign records as, each checked, as one entry by a. Those that stand
// already (the same assignee and due date) are left out, so that a form
// sent twice records once; when none is left (as empty included), nothing
// is written and the entry is nil, though a ledger that does not verify
// is still refused (*RefusedError).
func (l *Ledger) Assign(a Actor, as []Assignment) (*Entry, error) {
	for _, x := range as {
		if err := x.Check(); err != nil {
			return nil, err
		}
	}
	return l.Append(func(so []Entry, _ State) (*Entry, error) {
		standing := Assignments(so)
		var fresh []Assignment
		for _, x := range as {
			if s, ok := standing[AssignKey{x.Rule, x.EntityID}]; !ok || s.Assignment != x {
				fresh = append(fresh, x)
			}
		}
		if len(fresh) == 0 {
			return nil, nil
		}
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActAssign, Assign: fresh}, nil
	})
}

// Assignments are the assignments standing after entries, by finding:
// for each, the latest.
func Assignments(entries []Entry) map[AssignKey]Assigned {
	out := map[AssignKey]Assigned{}
	for _, e := range entries {
		if e.Action != ActAssign {
			continue
		}
		for _, x := range e.Assign {
			out[AssignKey{x.Rule, x.EntityID}] = Assigned{Assignment: x, By: e.By, At: e.At}
		}
	}
	return out
}

// checkAssign checks an assign entry: at least one assignment, each with
// the fields the fold keys on and a due date.
func (e *Entry) checkAssign() string {
	if len(e.Assign) == 0 {
		return "an assign entry without its assignments"
	}
	for _, x := range e.Assign {
		if why := need(e.Action, "assignment", "rule", x.Rule, "entity_id", x.EntityID, "assignee", x.Assignee, "due", x.Due); why != "" {
			return why
		}
		if _, err := time.Parse(time.DateOnly, x.Due); err != nil {
			return fmt.Sprintf("assignment of %s %s: due %q is not a date as YYYY-MM-DD", x.Rule, x.EntityID, x.Due)
		}
	}
	return ""
}
