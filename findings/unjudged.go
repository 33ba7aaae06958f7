package findings

import (
	"fmt"

	"github.com/billsnap/billsnap/internal/plural"
)

// Unjudged is what values that arrived untyped kept a rule from judging:
// records whose finding, or whose amount, depends on one of them (an
// assumed field that came in a JSON type with no lossless reading, NULL in
// its column). The rule raises no finding for them, and says so.
type Unjudged struct {
	Rule    string
	Table   string // the table of the untyped values
	Field   string // their JSON field
	Types   string // the JSON types they arrived as, "object, string"
	Records int    // records the rule did not judge because of them
}

// String says it the way reports do: 3 records not judged: field
// TotalAmount of invoices arrived as string.
func (u Unjudged) String() string {
	return fmt.Sprintf("%s not judged: field %s of %s arrived as %s", plural.Of(u.Records, "record"), u.Field, u.Table, u.Types)
}

// NotJudgedNotes are the report's lines on what values that arrived
// untyped kept rules from judging: a line per rule and field, the
// findings held back on the rule's first, then a line per rule that does
// not say what such values keep it from judging.
func (r *Report) NotJudgedNotes() []string {
	var out []string
	last := ""
	for _, u := range r.Unjudged {
		line := u.Rule + ": " + u.String()
		if u.Rule != last && r.HeldBack[u.Rule] > 0 {
			n := r.HeldBack[u.Rule]
			line += " (" + plural.Of(n, "finding") + " held back)"
		}
		last = u.Rule
		out = append(out, line)
	}
	for _, rule := range r.Unguarded {
		out = append(out, rule+": does not say which records values that arrived untyped keep it from judging "+
			"(no \"-- not judged\" section): its findings may include some those values caused")
	}
	return out
}
