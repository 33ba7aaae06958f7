package reports

import "github.com/billsnap/billsnap/internal/mdtext"

// mdText is s as Markdown text that reads as itself wherever the summary
// puts it (a table cell, a list item, a line of prose): each character
// that starts a Markdown construct — a heading (#), a link or image ([ ]
// !), emphasis (* _ ~), code (`), a table cell (|), HTML or an autolink
// (< > &), an escape (\) — behind a backslash, and each line break a
// space. The Markdown writer applies it to every value that comes from the
// service, the configuration or a person (a field's name, a drift's
// problem, a sign-off's comment, an explanation); callers never pre-escape.
// (CommonMark: any ASCII punctuation may be backslash-escaped.)
func mdText(s string) string { return mdtext.Escape(s, mdSpecial, false) }

// mdSpecial are the characters mdText puts behind a backslash.
const mdSpecial = "\\`*_[]<>|#!~&"
