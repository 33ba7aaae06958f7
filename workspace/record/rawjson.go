package record

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/billsnap/billsnap/internal/jsontext"
)

// maxRawDepth is the deepest raw JSON the record page shows as JSON:
// deeper, a browser or encoding/json (10,000 levels) may refuse it.
const maxRawDepth = jsontext.MaxDepth

// rawTextCap is how much of a raw JSON too deep to show as JSON the
// record page shows as text.
const rawTextCap = 64 << 10

// setRaw sets the record's raw JSON from text, the _raw column as DuckDB
// writes it: as JSON when it is nested maxRawDepth levels or less, else
// as text cut at rawTextCap, with a note saying why. The page is never
// blank about it. A record nested deeper than that is stored as a JSON
// string of its text (the export keeps it so: fields.md); it is shown as
// that text.
func (v *View) setRaw(text string) {
	if text == "" {
		return
	}
	if inner, ok := jsontext.Unquote(text); ok && jsontext.TooDeep(inner, maxRawDepth) {
		text = inner
	}
	if !jsontext.TooDeep(text, maxRawDepth) {
		v.Raw = json.RawMessage(text)
		return
	}
	v.RawText = text
	cut := ""
	if len(text) > rawTextCap {
		n := rawTextCap
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		v.RawText = text[:n]
		cut = fmt.Sprintf(", its first %d KB of %d KB", rawTextCap>>10, len(text)>>10)
	}
	v.RawNote = fmt.Sprintf("The raw JSON is nested deeper than %d levels, more than this page shows as JSON: shown as text%s.", maxRawDepth, cut)
}
