package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
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
// the JSON text \\xHH (H an upper-case hex digit) and each \u escape of a
// lone surrogate as the JSON text \\uDXXX: decoded, the string holds the
// four characters \xFF where the byte FF came, and the six characters
// \uD800 where that escape did. Invalid bytes only occur inside JSON
// strings (the page decoder refuses them elsewhere), so the text stays
// valid JSON.
func escapedText(s string) string {
	s = replaceInvalid(s, func(b *strings.Builder, c byte) { fmt.Fprintf(b, `\\x%02X`, c) })
	i := loneSurrogateAt(s, 0)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for last := 0; ; i = loneSurrogateAt(s, i+6) {
		if i < 0 {
			b.WriteString(s[last:])
			return b.String()
		}
		b.WriteString(s[last:i])
		b.WriteByte('\\')
		last = i
	}
}

// validJSONText tells whether s, valid JSON text, is valid Unicode: its
// bytes UTF-8, and every \u escape of a surrogate one of a pair. DuckDB
// refuses either in a VARCHAR or a JSON value.
func validJSONText(s string) bool { return utf8.ValidString(s) && loneSurrogateAt(s, 0) < 0 }

// loneSurrogateAt is the offset of the first \u escape at or after from
// in s, valid JSON text, of a surrogate that is not a high one followed
// by an escape of a low one; -1 when there is none. Every backslash in
// valid JSON text begins an escape of two characters or, for \u, six.
func loneSurrogateAt(s string, from int) int {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			return -1
		}
		j += i
		r := escapedRune(s, j)
		switch {
		case r < 0:
			i = j + 2
		case !utf16.IsSurrogate(r):
			i = j + 6
		case r < 0xdc00 && escapedRune(s, j+6) >= 0xdc00 && escapedRune(s, j+6) <= 0xdfff:
			i = j + 12
		default:
			return j
		}
	}
	return -1
}

// escapedRune is the code unit of the \u escape at s[i:], or -1 when
// there is none there.
func escapedRune(s string, i int) rune {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return -1
	}
	n, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
	if err != nil {
		return -1
	}
	return rune(n)
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

// repair makes the record's placed values valid Unicode (validJSONText),
// when raw, its JSON as sent, is not: a value of an assumed column gets
// U+FFFD for each invalid byte (validText; a lone surrogate's escape reads
// as U+FFFD already), and is marked for count; a contract column's is a
// contract break. It returns the record's _raw, escapedText of raw. Field
// names are repaired where they become new fields (slotOf).
func (b *rowBuilder) repair(fields []extract.Field, raw string) (string, error) {
	for i, f := range fields {
		s := b.slots[i]
		bad := !utf8.ValidString(f.Name) // decoded: no escapes left
		if !validJSONText(f.Raw) {
			if s >= 0 && b.columns[s].Contract {
				return "", fmt.Errorf("field %s: %s", f.Name, invalidText(f.Raw))
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

// invalidText says where s, valid JSON text that validJSONText refuses,
// is not valid Unicode.
func invalidText(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Sprintf("not valid UTF-8 at byte %d of its value", i)
		}
		i += n
	}
	i := loneSurrogateAt(s, 0)
	return fmt.Sprintf("the escape %s at byte %d of its value is half a surrogate pair, no character", s[i:i+6], i)
}
