package reports

import "strings"

// mdText is s as Markdown text that reads as itself wherever the summary
// puts it (a table cell, a list item, a line of prose): each character
// that starts a Markdown construct — a heading (#), a link or image ([ ]
// !), emphasis (* _ ~), code (`), a table cell (|), HTML or an autolink
// (< > &), an escape (\) — behind a backslash, and each line break a
// space. The Markdown writer applies it to every value that comes from the
// service, the configuration or a person (a field's name, a drift's
// problem, a sign-off's comment, an explanation); callers never pre-escape.
// (CommonMark: any ASCII punctuation may be backslash-escaped.)
func mdText(s string) string {
	if !strings.ContainsAny(s, mdSpecial+"\r\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r == '\r' || r == '\n':
			b.WriteByte(' ')
		case r == '_' && i > 0 && i+1 < len(s) && isWordByte(s[i-1]) && isWordByte(s[i+1]):
			b.WriteByte('_') // inside a word (unbilled_charges) it starts no emphasis
		case r < 0x80 && strings.IndexByte(mdSpecial, byte(r)) >= 0:
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isWordByte tells whether c is an ASCII letter or digit.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// mdSpecial are the characters mdText puts behind a backslash.
const mdSpecial = "\\`*_[]<>|#!~&"
