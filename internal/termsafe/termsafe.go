// Package termsafe escapes text bound for a terminal, so that what the
// service, a file or a ledger holds cannot move the cursor, retitle the
// window, change colours or reorder what is shown: the CLI's messages,
// the query's and status's tables, the terminal report. [String], [Lines]
// and [FirstLine] escape a text; a [Writer] escapes what is written
// through it.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// String returns s with every character a terminal would act on instead
// of showing escaped as Go writes it in a string literal: TAB, LF and CR
// as \t \n \r; the other C0 controls, DEL and bytes that are not UTF-8 as
// \xNN; the C1 controls (U+0080 to U+009F) and the bidirectional
// controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)
// as \uNNNN. Everything else, backslash included, is kept as it is.
func String(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case control(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether String would change s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || r < 0x20 || r == 0x7f || control(r) {
			return true
		}
		i += n
	}
	return false
}

// control reports whether r is a C1 or a bidirectional control.
func control(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, r == 0x61c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Lines is String for text of several lines, an error joined from
// several: each line is escaped and the line feeds between them are kept.
func Lines(s string) string {
	if !needsEscape(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = String(l)
	}
	return strings.Join(lines, "\n")
}

// FirstLine is String of the first line of s: one line of an error that
// may quote the service, for a table cell or a log line.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return String(line)
}

// Brief is String of the first line of s and of the indented lines right
// after it, joined on one line by " — ": an error with its hint (a line
// that begins with two spaces, as billsnap prints one), for a table cell
// or a log line. What follows a line that is not indented (a panic's
// stack) is left out.
func Brief(s string) string {
	lines := strings.Split(s, "\n")
	out := []string{String(lines[0])}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "  ") || strings.TrimSpace(l) == "" {
			break
		}
		out = append(out, String(strings.TrimSpace(l)))
	}
	return strings.Join(out, " — ")
}

// Writer writes through W with Lines applied to each write: text whose
// lines are its own, a report, passes with every control character the
// data put in it escaped. Each write is escaped on its own, so a write
// must hold whole characters (fmt's writes do).
type Writer struct{ W io.Writer }

// Write writes Lines(p) to W and reports all of p written when W takes
// it all.
func (t Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.W, Lines(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
