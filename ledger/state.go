package ledger

import (
	"fmt"
	"strings"
	"time"
)

// Made is a waiver with the record of its making and, if it was lifted,
// of its lifting.
type Made struct {
	Waiver
	By     string
	At     time.Time
	Lifted *Entry // nil while it stands
}

// State is what the entries come to: every waiver made, in order, and
// every sign-off.
type State struct {
	Waivers  []Made
	SignOffs []Signed
	Closes   []Closed
	// Explanations are the flux review's explanations, oldest first.
	Explanations []Explained
}

// Signed is a sign-off with who made it and when.
type Signed struct {
	SignOff
	By, Auth string
	At       time.Time
}

// Fold reads entries into their state: waivers, sign-offs and closes. An
// entry without the part its action needs (one Read would have refused)
// is passed over, never dereferenced.
func Fold(entries []Entry) State {
	var s State
	index := map[string]int{}
	for i := range entries {
		e := &entries[i]
		switch {
		case e.Action == ActWaive && e.Waiver != nil:
			index[e.Waiver.ID] = len(s.Waivers)
			s.Waivers = append(s.Waivers, Made{Waiver: *e.Waiver, By: e.By, At: e.At})
		case e.Action == ActLift:
			if j, ok := index[e.Lift]; ok && s.Waivers[j].Lifted == nil {
				s.Waivers[j].Lifted = e
			}
		case e.Action == ActSignOff && e.SignOff != nil:
			s.SignOffs = append(s.SignOffs, Signed{SignOff: *e.SignOff, By: e.By, Auth: e.Auth, At: e.At})
		case e.Action == ActClose && e.Close != nil:
			s.Closes = append(s.Closes, Closed{Close: *e.Close, By: e.By, Auth: e.Auth, At: e.At})
		case e.Action == ActExplain && e.Explanation != nil:
			s.Explanations = append(s.Explanations, Explained{Explanation: *e.Explanation, By: e.By, Auth: e.Auth, At: e.At})
		case e.Action == ActReopen && e.Reopen != nil:
			s.reopen(e)
		}
	}
	return s
}

// reopen marks the close e reopens, when it stands, as reopened by e.
func (s *State) reopen(e *Entry) {
	for j := len(s.Closes) - 1; j >= 0; j-- {
		if s.Closes[j].ID == e.Reopen.Close && s.Closes[j].Reopened == nil {
			s.Closes[j].Reopened = e
		}
	}
}

// Standing are the waivers not lifted (expired ones included: whether a
// waiver applies on a day is the reconciliation's to judge).
func (s State) Standing() []Made {
	var out []Made
	for _, w := range s.Waivers {
		if w.Lifted == nil {
			out = append(out, w)
		}
	}
	return out
}

// Waiver returns the waiver with the given ID.
func (s State) Waiver(id string) (Made, bool) {
	for _, w := range s.Waivers {
		if w.ID == id {
			return w, true
		}
	}
	return Made{}, false
}

// SignOffsOf are the sign-offs of a snapshot's reconciliation for a
// period, oldest first.
func (s State) SignOffsOf(snapshot, period string) []Signed {
	var out []Signed
	for _, so := range s.SignOffs {
		if so.Snapshot == snapshot && so.Period == period {
			out = append(out, so)
		}
	}
	return out
}

// InvalidError is an action unfit to record: the caller's mistake.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// Check reports what makes a waiver unfit to record: a missing field, an
// expiry that is not a date, text too long to be a name or a reason.
func (w Waiver) Check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"rule", w.Rule}, {"entity_id", w.EntityID}, {"reason", w.Reason},
		{"owner", w.Owner}, {"expires", w.Expires}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return invalid("waiver: %s required", strings.Join(missing, ", "))
	}
	if _, err := time.Parse(time.DateOnly, w.Expires); err != nil {
		return invalid("waiver: expires %q: want a date as YYYY-MM-DD", w.Expires)
	}
	return checkLengths(map[string]string{"rule": w.Rule, "entity_id": w.EntityID, "reason": w.Reason, "owner": w.Owner, "reason_code": w.ReasonCode})
}

// Check reports what makes a sign-off unfit to record: no snapshot,
// name or role, or text too long.
func (so SignOff) Check() error {
	if so.Snapshot == "" || strings.TrimSpace(so.Name) == "" || strings.TrimSpace(so.Role) == "" {
		return invalid("sign-off: snapshot, name and role required")
	}
	return checkLengths(map[string]string{"name": so.Name, "role": so.Role, "comment": so.Comment})
}

// maxText is the longest text a field of an entry takes, in bytes.
const maxText = 4000

func checkLengths(fields map[string]string) error {
	for name, v := range fields {
		if len(v) > maxText {
			return invalid("%s: longer than %d bytes", name, maxText)
		}
	}
	return nil
}
