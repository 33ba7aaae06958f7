// Package jsontext reads JSON text without decoding it: how deep its
// arrays and objects nest, so that text too deep for a JSON parser (a
// browser's, encoding/json's 10,000 levels, DuckDB's, which a million
// levels run out of memory) is never handed to one.
//
// [Depth] and [TooDeep] say how deep a text nests, at once for a text with
// fewer brackets than the bound. [Valid] says whether a text is JSON at all
// without recursing, for a page nested deeper than [MaxDepth]. [Quote] and
// [Unquote] keep a text as a JSON string. Package extract checks a deep
// page with it, ingest keeps a deep record's _raw as a string, and the
// workspace's record page shows it as text.
package jsontext

import (
	"encoding/json"
	"strings"
)

// MaxDepth is the deepest JSON text billsnap hands to a JSON parser, or
// shows as JSON; deeper text is kept, and shown, as text.
const MaxDepth = 1000

// Depth is how deep the arrays and objects of the JSON text s nest,
// counted up to limit+1: it stops reading there.
func Depth(s string, limit int) int {
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

// TooDeep tells whether s nests deeper than limit: at once for text with
// no more than limit brackets (every record a service sends, but an
// attacker's), which cannot.
func TooDeep(s string, limit int) bool {
	if strings.Count(s, "[")+strings.Count(s, "{") <= limit {
		return false
	}
	return Depth(s, limit) > limit
}

// Quote is s as a JSON string: text that a JSON parser reads as one
// value, however deep the JSON it holds.
func Quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// Unquote is the text a JSON string s (as Quote writes it) holds, and
// whether s is one.
func Unquote(s string) (string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", false
	}
	var text string
	if err := json.Unmarshal([]byte(s), &text); err != nil {
		return "", false
	}
	return text, true
}
