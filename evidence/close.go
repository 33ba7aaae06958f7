package evidence

import (
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/ledger"
)

// UnknownCloseError is a pack asked of a close the ledger does not hold
// (Of is ""), or of a close of another period than the one asked (Of is
// the close's period). Closes are the ledger's closes, each as
// "C5 (2026-10, reopened)", for the message to list.
type UnknownCloseError struct {
	ID, Period, Of string
	Closes         []string
}

func (e *UnknownCloseError) Error() string {
	if e.Of != "" {
		return fmt.Sprintf("close %s closed period %s, not %s", e.ID, e.Of, e.Period)
	}
	known := "the ledger holds no close yet"
	if len(e.Closes) > 0 {
		known = "its closes: " + strings.Join(e.Closes, ", ")
	}
	return fmt.Sprintf("close %q: the ledger holds no such close (%s)", e.ID, known)
}

// NotClosedError is a pack asked of a period that is not closed. Reopened
// are the period's closes reopened since, whose packs can still be
// written by their ID (Source.Close).
type NotClosedError struct {
	Period   string
	Reopened []string
}

func (e *NotClosedError) Error() string {
	msg := fmt.Sprintf("period %s is not closed: close it in the workspace (billsnap serve) first", e.Period)
	if len(e.Reopened) > 0 {
		msg += fmt.Sprintf("; the pack of an earlier close of it, reopened since (%s), is written with --close ID", strings.Join(e.Reopened, ", "))
	}
	return msg
}

// asClosed is the ledger as it stood while the close a pack is of stood:
// that close, and the ledger's lines and entries up to it and its
// adjustments, with their state.
type asClosed struct {
	lines   [][]byte
	entries []ledger.Entry
	st      ledger.State
	close   ledger.Closed
}

// closeOf finds the close src asks for in the ledger's lines and entries
// (its chain verified): the standing close of src.Period when src.Close
// is "", else close src.Close, of src.Period when that is given. The
// ledger is cut where that close was reopened, so the pack is the one
// written the moment before: the close, its adjustments and whatever
// else the ledger held then, and nothing after. The standing close's
// ledger is not cut.
func closeOf(lines [][]byte, entries []ledger.Entry, src Source) (asClosed, error) {
	st := ledger.Fold(entries)
	if src.Close == "" {
		c, ok := st.ClosedPeriod(src.Period)
		if !ok {
			return asClosed{}, &NotClosedError{Period: src.Period, Reopened: reopened(st, src.Period)}
		}
		return asClosed{lines, entries, st, c}, nil
	}
	i := indexOf(st.Closes, src.Close)
	switch {
	case i < 0:
		return asClosed{}, &UnknownCloseError{ID: src.Close, Period: src.Period, Closes: listCloses(st)}
	case src.Period != "" && st.Closes[i].Period != src.Period:
		return asClosed{}, &UnknownCloseError{ID: src.Close, Period: src.Period, Of: st.Closes[i].Period}
	}
	n := len(entries)
	if r := st.Closes[i].Reopened; r != nil {
		n = seqIndex(entries, r.Seq)
	}
	cut := ledger.Fold(entries[:n])
	c := cut.Closes[indexOf(cut.Closes, src.Close)]
	return asClosed{lines[:n], entries[:n], cut, c}, nil
}

// indexOf is the index of close id in closes, -1 when none is.
func indexOf(closes []ledger.Closed, id string) int {
	for i, c := range closes {
		if c.ID == id {
			return i
		}
	}
	return -1
}

// seqIndex is the index of the entry of seq in entries (len(entries)
// when none is).
func seqIndex(entries []ledger.Entry, seq int) int {
	for i, e := range entries {
		if e.Seq == seq {
			return i
		}
	}
	return len(entries)
}

// reopened are the IDs of period's closes reopened since.
func reopened(st ledger.State, period string) []string {
	var out []string
	for _, c := range st.Closes {
		if c.Period == period && c.Reopened != nil {
			out = append(out, c.ID)
		}
	}
	return out
}

// listCloses are the ledger's closes as UnknownCloseError lists them,
// the newest twelve.
func listCloses(st ledger.State) []string {
	var out []string
	for _, c := range st.Closes[max(0, len(st.Closes)-12):] {
		how := "standing"
		if c.Reopened != nil {
			how = "reopened"
		}
		out = append(out, fmt.Sprintf("%s (%s, %s)", c.ID, c.Period, how))
	}
	return out
}
