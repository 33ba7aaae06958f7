package ledger

import (
	"fmt"
	"time"
)

// MalformedError is a line that reads as JSON but not as the entry its
// action says: a waive without its waiver, a close without its period.
// It is met when the line is read, before anything folds it.
type MalformedError struct {
	Path string
	Line int // 1-based
	Seq  int
	Why  string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("ledger %s: line %d (seq %d) is not a valid entry: %s", e.Path, e.Line, e.Seq, e.Why)
}

// check says what makes e unfit to fold ("" when nothing): its action
// unknown, or the part its action needs missing or without a field the
// fold or its readers use.
func (e *Entry) check() string {
	switch e.Action {
	case ActWaive:
		return e.checkWaiver()
	case ActLift:
		return need(e.Action, "", "lift", e.Lift)
	case ActSignOff:
		if e.SignOff == nil {
			return "a signoff entry without its signoff"
		}
		return need(e.Action, "signoff", "id", e.SignOff.ID, "snapshot_id", e.SignOff.Snapshot)
	case ActClose:
		if e.Close == nil {
			return "a close entry without its close"
		}
		return need(e.Action, "close", "id", e.Close.ID, "period", e.Close.Period, "snapshot_id", e.Close.Snapshot)
	case ActAssign:
		return e.checkAssign()
	case ActExplain:
		return e.checkExplanation()
	case ActComment:
		return e.checkComment()
	case ActResolve:
		return e.checkResolution()
	case ActReopen:
		if e.Reopen == nil {
			return "a reopen entry without its reopen"
		}
		return need(e.Action, "reopen", "close", e.Reopen.Close, "period", e.Reopen.Period)
	}
	return fmt.Sprintf("unknown action %q", e.Action)
}

// checkWaiver checks a waive entry's waiver.
func (e *Entry) checkWaiver() string {
	w := e.Waiver
	if w == nil {
		return "a waive entry without its waiver"
	}
	if why := need(e.Action, "waiver", "id", w.ID, "rule", w.Rule, "entity_id", w.EntityID, "expires", w.Expires); why != "" {
		return why
	}
	if _, err := time.Parse(time.DateOnly, w.Expires); err != nil {
		return fmt.Sprintf("waiver %s: expires %q is not a date as YYYY-MM-DD", w.ID, w.Expires)
	}
	return ""
}

// need names the first empty field of fields, pairs of a name and its
// value in part (the entry itself when part is ""): the fields the fold
// and its readers key on. "" when none is empty.
func need(action, part string, fields ...string) string {
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i+1] != "" {
			continue
		}
		if part == "" {
			return fmt.Sprintf("a %s entry without its %q", action, fields[i])
		}
		return fmt.Sprintf("a %s entry whose %s has no %q", action, part, fields[i])
	}
	return ""
}
