package ledger

import (
	"fmt"
	"strings"
	"time"
)

// ActResolve is an entry that records how a finding was resolved.
const ActResolve = "resolve"

// Resolution is how finance says a finding was, or is being, resolved: a
// reason code of the catalogue (worklist.reasons) and a note. It changes
// no finding's status: a finding is resolved when a reconciliation no
// longer finds it, and a finding still found stays open (a waiver is how
// one is accepted as it is). The latest resolution of a finding stands.
type Resolution struct {
	ID         string `json:"id"`
	Rule       string `json:"rule"`
	EntityID   string `json:"entity_id"`
	ReasonCode string `json:"reason_code"`
	Note       string `json:"note,omitempty"`
}

// Resolved is a resolution with who recorded it and when.
type Resolved struct {
	Resolution
	By, Auth string
	At       time.Time
}

// Check reports what makes a resolution unfit to record: a missing field,
// text over 4,000 bytes, a note with control characters.
func (x Resolution) Check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"rule", x.Rule}, {"entity_id", x.EntityID}, {"reason_code", x.ReasonCode}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return invalid("resolution: %s required", strings.Join(missing, ", "))
	}
	if err := checkLengths(map[string]string{"resolution: note": x.Note, "resolution: rule": x.Rule, "resolution: entity_id": x.EntityID, "resolution: reason_code": x.ReasonCode}); err != nil {
		return err
	}
	if i := strings.IndexFunc(x.Note, controlChar); i >= 0 {
		return invalid("resolution: note has a control character (%U at byte %d): write plain text", []rune(x.Note[i:])[0], i)
	}
	return nil
}

// Resolve records resolution x by a, its note trimmed. The same code and
// note as the resolution that stands for the finding is given back
// instead, so that a form sent twice records once. The ID is set here.
func (l *Ledger) Resolve(a Actor, x Resolution) (Resolved, error) {
	x.Note = strings.TrimSpace(x.Note)
	if err := x.Check(); err != nil {
		return Resolved{}, err
	}
	var out Resolved
	e, err := l.Append(func(so []Entry, _ State) (*Entry, error) {
		if s, ok := Resolutions(so)[AssignKey{x.Rule, x.EntityID}]; ok && s.ReasonCode == x.ReasonCode && s.Note == x.Note {
			out = s
			return nil, nil
		}
		x.ID = fmt.Sprintf("R%d", nextSeq(so))
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActResolve, Resolution: &x}, nil
	})
	if err != nil || e == nil {
		return out, err
	}
	return Resolved{Resolution: *e.Resolution, By: e.By, Auth: e.Auth, At: e.At}, nil
}

// Resolutions are the resolutions standing after entries, by finding:
// for each, the latest.
func Resolutions(entries []Entry) map[AssignKey]Resolved {
	out := map[AssignKey]Resolved{}
	for _, e := range entries {
		if e.Action == ActResolve && e.Resolution != nil {
			out[AssignKey{e.Resolution.Rule, e.Resolution.EntityID}] = Resolved{Resolution: *e.Resolution, By: e.By, Auth: e.Auth, At: e.At}
		}
	}
	return out
}

// checkResolution checks a resolve entry's resolution.
func (e *Entry) checkResolution() string {
	if e.Resolution == nil {
		return "a resolve entry without its resolution"
	}
	x := e.Resolution
	return need(e.Action, "resolution", "id", x.ID, "rule", x.Rule, "entity_id", x.EntityID, "reason_code", x.ReasonCode)
}
