package ledger

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// ActExplain is a line of a period's flux review explained.
const ActExplain = "explain"

// Explanation explains why a measure of a period's flux review moved
// from the month before: the figures it explains (Previous and Current,
// decimal strings) are recorded with it, so that once the figures move
// (a later export) it no longer counts for them.
type Explanation struct {
	ID       string `json:"id"`
	Period   string `json:"period"`   // YYYY-MM
	Measure  string `json:"measure"`  // billed, collected, … (package flux)
	Currency string `json:"currency"` // 3 letters
	Previous string `json:"previous"` // the month before's figure explained
	Current  string `json:"current"`  // the period's figure explained
	Snapshot string `json:"snapshot_id"`
	Text     string `json:"text"`
}

// Explained is an explanation with who gave it and when.
type Explained struct {
	Explanation
	By, Auth string
	At       time.Time
}

// Check reports what makes an explanation unfit to record: a missing
// field, text over 4,000 bytes, or text with control characters (a tab
// and line breaks aside).
func (x Explanation) Check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"period", x.Period}, {"measure", x.Measure}, {"currency", x.Currency},
		{"previous", x.Previous}, {"current", x.Current}, {"text", x.Text}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return invalid("explanation: %s required", strings.Join(missing, ", "))
	}
	if err := checkLengths(map[string]string{"text": x.Text, "measure": x.Measure, "currency": x.Currency}); err != nil {
		return err
	}
	if i := strings.IndexFunc(x.Text, controlChar); i >= 0 {
		return invalid("explanation: text has a control character (%U at byte %d): write plain text", []rune(x.Text[i:])[0], i)
	}
	return nil
}

// controlChar is a character text from a user may not hold: a control
// character (but tab, line feed and carriage return) or one that turns
// the direction of the text around it.
func controlChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case unicode.IsControl(r), r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e || r == 0x200f:
		return true
	}
	return false
}

// Explain records explanation x by a. The same text for the same figures
// of the same line, given already, is given back instead, so that a form
// sent twice records one explanation. The ID is set here.
func (l *Ledger) Explain(a Actor, x Explanation) (Explained, error) {
	x.Text = strings.TrimSpace(x.Text)
	if err := x.Check(); err != nil {
		return Explained{}, err
	}
	var out Explained
	e, err := l.Append(func(so []Entry, st State) (*Entry, error) {
		for _, y := range st.Explanations {
			if y.Period == x.Period && y.Measure == x.Measure && y.Currency == x.Currency && y.Previous == x.Previous &&
				y.Current == x.Current && y.Text == x.Text {
				out = y
				return nil, nil
			}
		}
		x.ID = fmt.Sprintf("X%d", nextSeq(so))
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActExplain, Explanation: &x}, nil
	})
	if err != nil || e == nil {
		return out, err
	}
	return Explained{Explanation: *e.Explanation, By: e.By, Auth: e.Auth, At: e.At}, nil
}

// checkExplanation checks an explain entry's explanation.
func (e *Entry) checkExplanation() string {
	if e.Explanation == nil {
		return "an explain entry without its explanation"
	}
	x := e.Explanation
	return need(e.Action, "explanation", "id", x.ID, "period", x.Period, "measure", x.Measure, "currency", x.Currency,
		"previous", x.Previous, "current", x.Current)
}
