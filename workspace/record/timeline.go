package record

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Version is one version of the record in its timeline: its validity
// and the snapshots that bound it, how it began (base: held when
// history began; insert; update, with each field that changed, old and
// new), and whether its end was the record's deletion. Every field's
// name and value is a Snippet: nothing the service sent is given whole.
type Version struct {
	From      string        `json:"snapshot_from"`
	To        string        `json:"snapshot_to"` // "" while current
	ValidFrom time.Time     `json:"valid_from"`
	ValidTo   *time.Time    `json:"valid_to"` // null while current
	Began     string        `json:"began"`    // base, insert or update
	Changes   []FieldChange `json:"changes"`  // an update's fields
	Deleted   bool          `json:"deleted"`  // deleted at valid_to
	// FromText and ToText are ValidFrom and ValidTo as the page shows
	// times ("" while current).
	FromText, ToText string `json:"-"`
}

// FieldChange is one field an update changed: its name, and its values
// before and after as JSON text, each a Snippet.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// SnippetRunes is how many characters of a value a Snippet keeps.
const SnippetRunes = 80

// Snippet is s as a page may show it whole: its characters a terminal or
// a bidirectional text would act on escaped (termsafe.String), and when
// it is longer than SnippetRunes characters, its first SnippetRunes and
// how long it was ("…" and "(1,234 characters)").
func Snippet(s string) string {
	n, cut := 0, len(s)
	for i := range s {
		if n == SnippetRunes {
			cut = i
		}
		n++
	}
	if n <= SnippetRunes {
		return termsafe.String(s)
	}
	return fmt.Sprintf("%s… (%s characters)", termsafe.String(s[:cut]), grouped(n))
}

// grouped is n with its thousands separated by commas.
func grouped(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// timelineOf is the record's timeline, oldest first; none when the read
// model has no history of table (a model published before history).
func timelineOf(ctx context.Context, db *sql.DB, table, id string) ([]Version, error) {
	if ok, err := readmodel.Has(ctx, db, table+"_history"); err != nil || !ok {
		return nil, err
	}
	vs, err := readmodel.Timeline(ctx, db, table, id)
	if err != nil {
		return nil, err
	}
	out := make([]Version, len(vs))
	for i, v := range vs {
		out[i] = Version{From: v.From, To: v.To, ValidFrom: v.ValidFrom, ValidTo: v.ValidTo, Began: v.Began, Deleted: v.Deleted,
			FromText: display(v.ValidFrom)}
		if v.ValidTo != nil {
			out[i].ToText = display(*v.ValidTo)
		}
		if out[i].Changes, err = fieldChanges(v); err != nil {
			return nil, fmt.Errorf("the version of %s %s from %s: %w", table, id, v.From, err)
		}
	}
	return out, nil
}

// fieldChanges are an update's fields, old and new, as snippets.
func fieldChanges(v readmodel.TimelineVersion) ([]FieldChange, error) {
	if v.Began != readmodel.OpUpdate {
		return nil, nil
	}
	var old, new map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v.OldValues), &old); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(v.NewValues), &new); err != nil {
		return nil, err
	}
	out := make([]FieldChange, len(v.Fields))
	for i, f := range v.Fields {
		out[i] = FieldChange{Field: Snippet(f), Old: Snippet(valueText(old[f])), New: Snippet(valueText(new[f]))}
	}
	return out, nil
}

// valueText is a field's JSON value as text, null for one absent.
func valueText(v json.RawMessage) string {
	if v == nil {
		return "null"
	}
	return string(v)
}
