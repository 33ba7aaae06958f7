package ledger

import (
	"errors"
	"fmt"
)

// ErrNoWaiver is a lift of a waiver the ledger does not hold.
var ErrNoWaiver = errors.New("no such waiver")

// Actor is who acts, from where, and how By was established: "header"
// (a trusted proxy's), "tokens" (a user's own token), "" (as typed: unattributed).
type Actor struct {
	By, From, Auth string
	Allowed        string // the key that let an unattributed actor write (Entry.Allowed)
}

// Waive records waiver w, made by a. An equal waiver that stands already
// (same rule, entity, reason, owner and expiry) is given back instead, so
// that a form sent twice makes one waiver. The ID is set here.
func (l *Ledger) Waive(a Actor, w Waiver) (Made, error) {
	if err := w.Check(); err != nil {
		return Made{}, err
	}
	var made Made
	e, err := l.Append(func(so []Entry, st State) (*Entry, error) {
		for _, m := range st.Standing() {
			if m.Rule == w.Rule && m.EntityID == w.EntityID && m.Reason == w.Reason && m.ReasonCode == w.ReasonCode && m.Owner == w.Owner && m.Expires == w.Expires {
				made = m
				return nil, nil
			}
		}
		w.ID = fmt.Sprintf("W%d", nextSeq(so))
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActWaive, Waiver: &w}, nil
	})
	if err != nil || e == nil {
		return made, err
	}
	return Made{Waiver: *e.Waiver, By: e.By, At: e.At}, nil
}

// Lift lifts the waiver id. Lifting a waiver already lifted records
// nothing more and gives back the first lift.
func (l *Ledger) Lift(a Actor, id string) (Made, error) {
	var made Made
	e, err := l.Append(func(so []Entry, st State) (*Entry, error) {
		var ok bool
		made, ok = st.Waiver(id)
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: %q", ErrNoWaiver, id)
		case made.Lifted != nil:
			return nil, nil
		}
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActLift, Lift: id}, nil
	})
	if err != nil {
		return Made{}, err
	}
	if e != nil {
		made.Lifted = e
	}
	return made, nil
}

// SignOff records sign-off s by a. The same person signing off the same
// findings of the same reconciliation twice records one sign-off. The ID
// is set here.
func (l *Ledger) SignOff(a Actor, s SignOff) (Signed, error) {
	if err := s.Check(); err != nil {
		return Signed{}, err
	}
	var out Signed
	e, err := l.Append(func(so []Entry, st State) (*Entry, error) {
		for _, x := range st.SignOffsOf(s.Snapshot, s.Period) {
			if x.Name == s.Name && x.Role == s.Role && x.Digest == s.Digest && x.Comment == s.Comment {
				out = x
				return nil, nil
			}
		}
		s.ID = fmt.Sprintf("S%d", nextSeq(so))
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActSignOff, SignOff: &s}, nil
	})
	if err != nil || e == nil {
		return out, err
	}
	return Signed{SignOff: *e.SignOff, By: e.By, Auth: e.Auth, At: e.At}, nil
}

// nextSeq is the sequence number the next entry gets.
func nextSeq(so []Entry) int {
	if len(so) == 0 {
		return 1
	}
	return so[len(so)-1].Seq + 1
}
