package ingest

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/billsnap/billsnap/extract"
)

// validText is s with each byte that Go's decoder cannot read as part of a
// UTF-8 sequence (utf8.DecodeRuneInString gives U+FFFD of width 1)
// replaced by U+FFFD: "\xff\xfe\xc3(" becomes "\ufffd\ufffd\ufffd(". A
// valid s is returned as it is.
func validText(s string) string {
	return replaceInvalid(s, func(b *strings.Builder, _ byte) { b.WriteRune(utf8.RuneError) })
}

// escapedText is s, valid JSON text, with each invalid byte written as
// the JSON text \\xHH (H an upper-case hex digit): decoded, the string
// holds the four characters \xFF where the byte FF came. Invalid bytes
// only occur inside JSON strings (the page decoder refuses them
// elsewhere), so the text stays valid JSON.
func escapedText(s string) string {
	return replaceInvalid(s, func(b *strings.Builder, c byte) { fmt.Fprintf(b, `\\x%02X`, c) })
}

// replaceInvalid is s with each invalid byte c written by put.
func replaceInvalid(s string, put func(b *strings.Builder, c byte)) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			put(&b, s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// repair makes the record's placed values valid UTF-8, when raw, its JSON
// as sent, is not: a value of an assumed column gets U+FFFD for each
// invalid byte (validText), and is marked for count; a contract column's
// is a contract break. It returns the record's _raw, escapedText of raw.
// Field names are repaired where they become new fields (slotOf).
func (b *rowBuilder) repair(fields []extract.Field, raw string) (string, error) {
	for i, f := range fields {
		s := b.slots[i]
		bad := !utf8.ValidString(f.Name)
		if !utf8.ValidString(f.Raw) {
			if s >= 0 && b.columns[s].Contract {
				return "", fmt.Errorf("field %s: not valid UTF-8 at byte %d of its value", f.Name, invalidAt(f.Raw))
			}
			if s >= 0 && b.vals[s] == f.Raw {
				b.vals[s] = validText(f.Raw)
			}
			bad = true
		}
		b.fixed[i] = bad
	}
	return escapedText(raw), nil
}

// invalidAt is the offset of the first invalid byte of s.
func invalidAt(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
