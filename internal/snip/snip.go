// Package snip bounds what billsnap echoes: a value quoted in a message
// is cut to a snippet that states its length (String), and no line
// written through a Writer is longer than its bound (Line, 4 KB, for
// billsnap's errors, logs, status and journal), whatever the service, a
// file or a user put in it: a million-digit amount once made a 1 MB error
// line on stderr, in the journal, in status and in a webhook's body.
package snip

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Line is the longest line billsnap writes to stderr, the journal,
// status and a notification, in bytes.
const Line = 4096

// String is s when it is at most max bytes long; else its start (whole
// characters) followed by "… (N bytes)", N the length of s, the whole at
// most max bytes (a limit below 32 is taken as 32).
func String(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return cut(s, len(s), limit)
}

// cut is the start of s (whole characters) and "… (n bytes)", at most
// max bytes in all.
func cut(s string, n, limit int) string {
	limit = max(limit, room)
	note := fmt.Sprintf("… (%d bytes)", n)
	keep := max(0, min(len(s), limit-len(note)))
	for keep > 0 && keep < len(s) && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + note
}

// Lines is String applied to each line of s.
func Lines(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = String(l, limit)
	}
	return strings.Join(lines, "\n")
}

// Writer writes through W with no line longer than Max bytes (Line when
// 0): a line that would be longer is cut, at a character's start, and
// ends with "… (N bytes)", N the length of the line as it was written. A
// carriage return ends a line as a newline does (a terminal's progress
// bar redraws its line after one).
// A line still open when the writes stop is ended by Flush, or by the
// next write's newline. Writes are passed on as they come, so that
// progress and logs are seen as they are written.
type Writer struct {
	W   io.Writer
	Max int

	line int  // bytes of the current line written so far, cut or not
	cut  bool // the current line has been cut: the rest waits for its newline
}

// Write writes p, cutting what would make a line longer than the bound;
// it reports all of p written when W takes what it is given.
func (w *Writer) Write(p []byte) (int, error) {
	limit := w.Max
	if limit == 0 {
		limit = Line
	}
	var out []byte
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexAny(rest, "\r\n")
		seg := rest
		if i >= 0 {
			seg = rest[:i]
		}
		out = w.segment(out, seg, limit)
		if i < 0 {
			break
		}
		if w.cut {
			out = fmt.Appendf(out, "… (%d bytes)", w.line)
		}
		out = append(out, rest[i])
		w.line, w.cut = 0, false
		rest = rest[i+1:]
	}
	if _, err := w.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// room is what a cut line keeps: the note "… (N bytes)" fits after it.
const room = 32

// segment appends to out what of seg, part of the current line, stays
// within limit bytes.
func (w *Writer) segment(out, seg []byte, limit int) []byte {
	if w.cut {
		w.line += len(seg)
		return out
	}
	if w.line+len(seg) <= limit {
		w.line += len(seg)
		return append(out, seg...)
	}
	keep := max(0, limit-room-w.line)
	for keep > 0 && keep < len(seg) && !utf8.RuneStart(seg[keep]) {
		keep--
	}
	w.line += len(seg)
	w.cut = true
	return append(out, seg[:keep]...)
}

// Flush ends a line left open and cut with its note.
func (w *Writer) Flush() error {
	if !w.cut {
		return nil
	}
	_, err := fmt.Fprintf(w.W, "… (%d bytes)\n", w.line)
	w.line, w.cut = 0, false
	return err
}

// JSON is String for a value written as a JSON string: s, or its start
// and "… (N bytes)", such that encoding/json writes it in at most limit
// bytes, quotes and escapes included (a control character takes six).
func JSON(s string, limit int) string {
	if len(s) <= limit/6-2 || encodedLen(s) <= limit {
		return s
	}
	note := fmt.Sprintf("… (%d bytes)", len(s))
	budget := max(limit, room) - 2 - encodedLen(note)
	n, keep := 0, 0
	for i, r := range s {
		size := runeLen(r, s[i:])
		if n+size > budget {
			break
		}
		n += size
		keep = i + utf8.RuneLen(r)
		if r == utf8.RuneError {
			keep = i + 1
		}
	}
	return s[:keep] + note
}

// encodedLen is the length of s as encoding/json writes it, quotes
// included.
func encodedLen(s string) int {
	n := 2
	for i, r := range s {
		n += runeLen(r, s[i:])
	}
	return n
}

// runeLen is how many bytes encoding/json writes for r, the rune at the
// start of rest.
func runeLen(r rune, rest string) int {
	switch {
	case r == utf8.RuneError:
		if _, size := utf8.DecodeRuneInString(rest); size == 1 {
			return 6 // \ufffd
		}
		return 3
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029:
		return 6
	}
	return utf8.RuneLen(r)
}
