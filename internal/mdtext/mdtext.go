// Package mdtext writes text into Markdown so that it reads as itself:
// the escaping that the Markdown sinks (the summary of package reports, a
// Teams card of package notify) own. [Escape] puts Markdown's characters
// behind a backslash, leaves an underscore inside a word as it is, and
// keeps line breaks or makes them spaces.
package mdtext

import "strings"

// Escape is s with each byte of special behind a backslash (CommonMark:
// any ASCII punctuation may be escaped so), but an underscore inside a
// word (unbilled_charges), which starts no emphasis; with lines false,
// each line break becomes a space, so that s stays on the line (a table
// cell, a list item) it is written into.
func Escape(s, special string, lines bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c == '\r' || c == '\n') && !lines:
			b.WriteByte(' ')
			continue
		case c == '_' && i > 0 && i+1 < len(s) && wordByte(s[i-1]) && wordByte(s[i+1]):
		case strings.IndexByte(special, c) >= 0:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// wordByte tells whether c is an ASCII letter or digit.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
