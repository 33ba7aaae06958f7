package ledger

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Actions of a period's close.
const (
	ActClose  = "close"
	ActReopen = "reopen"
)

// Close is a period closed: the reconciliation of the signed snapshot it
// freezes, with what it came to. Its findings, as they stood, are the
// closed record's files (Files: each path, relative to the store, with
// its SHA-256), written before the close is recorded.
type Close struct {
	ID       string           `json:"id"`
	Period   string           `json:"period"`
	Snapshot string           `json:"snapshot_id"`
	SignOff  string           `json:"signoff"` // the sign-off it closes on
	Comment  string           `json:"comment,omitempty"`
	Findings int              `json:"findings"` // open: neither resolved nor waived (findings.Finding.IsOpen); before 2026-11-29, waived included
	Digest   string           `json:"digest"`
	Totals   map[string]Total `json:"totals"`
	Waivers  []string         `json:"waivers"` // the waivers standing at the close
	Files    []File           `json:"files"`
}

// File is a file of a closed record, with its SHA-256.
type File struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Reopen is a closed period opened again, with the reason.
type Reopen struct {
	Close  string `json:"close"`
	Period string `json:"period"`
	Reason string `json:"reason"`
}

// Closed is a close with who made it and when, and, once the period was
// reopened, the reopening.
type Closed struct {
	Close
	By, Auth string
	At       time.Time
	Reopened *Entry
}

// ErrNotClosed is a reopen of a period that is not closed.
var ErrNotClosed = errors.New("the period is not closed")

// ClosedError is a close of a period that is closed already.
type ClosedError struct{ Closed Closed }

func (e *ClosedError) Error() string {
	return fmt.Sprintf("period %s is closed already (%s, by %s at %s): reopen it first", e.Closed.Period, e.Closed.ID,
		e.Closed.By, e.Closed.At.UTC().Format(time.RFC3339))
}

// ClosePeriod records close c by a. The close rests on a sign-off of the
// period (c.SignOff) that the ledger holds for c.Snapshot. A period closed
// already is a *ClosedError, unless the close asked is the one that stands
// (the same snapshot and digest): that is given back, so that a form sent
// twice closes once. The ID is set here.
func (l *Ledger) ClosePeriod(a Actor, c Close) (Closed, error) {
	if c.Period == "" || c.Snapshot == "" || c.SignOff == "" {
		return Closed{}, invalid("close: period, snapshot and sign-off required")
	}
	if err := checkLengths(map[string]string{"comment": c.Comment}); err != nil {
		return Closed{}, err
	}
	var out Closed
	e, err := l.Append(func(so []Entry, st State) (*Entry, error) {
		if cur, ok := st.ClosedPeriod(c.Period); ok {
			if cur.Snapshot == c.Snapshot && cur.Digest == c.Digest {
				out = cur
				return nil, nil
			}
			return nil, &ClosedError{Closed: cur}
		}
		if !st.signed(c.SignOff, c.Snapshot, c.Period) {
			return nil, invalid("close: no sign-off %s of snapshot %s for period %s", c.SignOff, c.Snapshot, c.Period)
		}
		c.ID = fmt.Sprintf("C%d", nextSeq(so))
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActClose, Close: &c}, nil
	})
	if err != nil || e == nil {
		return out, err
	}
	return Closed{Close: *e.Close, By: e.By, Auth: e.Auth, At: e.At}, nil
}

// ReopenPeriod reopens the closed period for reason, by a. A period not
// closed is ErrNotClosed; a reason is required.
func (l *Ledger) ReopenPeriod(a Actor, period, reason string) (Closed, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Closed{}, invalid("reopen: a reason is required")
	}
	if err := checkLengths(map[string]string{"reason": reason}); err != nil {
		return Closed{}, err
	}
	var out Closed
	e, err := l.Append(func(so []Entry, st State) (*Entry, error) {
		cur, ok := st.ClosedPeriod(period)
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrNotClosed, period)
		}
		out = cur
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActReopen, Reopen: &Reopen{Close: cur.ID, Period: period, Reason: reason}}, nil
	})
	if err != nil {
		return Closed{}, err
	}
	out.Reopened = e
	return out, nil
}

// signed tells whether sign-off id of snapshot and period is recorded.
func (s State) signed(id, snapshot, period string) bool {
	for _, so := range s.SignOffs {
		if so.ID == id && so.Snapshot == snapshot && so.Period == period {
			return true
		}
	}
	return false
}

// ClosedPeriod is the close that stands for period: its newest close,
// when it was not reopened.
func (s State) ClosedPeriod(period string) (Closed, bool) {
	for i := len(s.Closes) - 1; i >= 0; i-- {
		if c := s.Closes[i]; c.Period == period {
			return c, c.Reopened == nil
		}
	}
	return Closed{}, false
}

// StandingCloses are the closes not reopened.
func (s State) StandingCloses() []Closed {
	var out []Closed
	for _, c := range s.Closes {
		if c.Reopened == nil {
			out = append(out, c)
		}
	}
	return out
}

// Adjustments are the entries recorded after close c while it stood:
// those marked as its post-close adjustments, oldest first.
func Adjustments(entries []Entry, c Closed) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.PostClose == c.ID {
			out = append(out, e)
		}
	}
	return out
}
