package record

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// maxRawDepth is the deepest raw JSON the record page shows as JSON:
// deeper, a browser or encoding/json (10,000 levels) may refuse it.
const maxRawDepth = 1000

// rawTextCap is how much of a raw JSON too deep to show as JSON the
// record page shows as text.
const rawTextCap = 64 << 10

// setRaw sets the record's raw JSON from text, the _raw column as DuckDB
// writes it: as JSON when it is nested maxRawDepth levels or less, else
// as text cut at rawTextCap, with a note saying why. The page is never
// blank about it.
func (v *View) setRaw(text string) {
	if text == "" {
		return
	}
	depth := jsonDepth(text, maxRawDepth)
	if depth <= maxRawDepth {
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

// jsonDepth is how deep the arrays and objects of the JSON text s nest,
// counted up to limit+1: it stops reading there.
func jsonDepth(s string, limit int) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > deepest {
				if deepest = depth; deepest > limit {
					return deepest
				}
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}
