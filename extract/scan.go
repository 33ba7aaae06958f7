package extract

import (
	"strings"

	"github.com/tidwall/gjson"
)

// The functions here read JSON text that is already known to be valid
// (a page body gjson.Valid accepted, or a value taken from one): they find
// where values end and do not check them again. Each reads its text once;
// walking a page with gjson's ForEach read every record twice, once to
// find its end and once for its fields.

// Elements calls f with the text of each element of the JSON array arr
// (valid JSON, starting with '['), in order, until f returns false. For
// an object, members are its members, appended to fields in the same
// reading (see Members); for anything else, nil. The answer is fields,
// grown, for the caller to reuse: the members of every object are in it.
func Elements(arr string, fields []Field, f func(elem string, members []Field) bool) []Field {
	_, fields = elements(arr, 0, fields, 0, f)
	return fields
}

// elements is Elements of the array at s[at:], and where the array ends
// (or where f stopped). After the first object, fields is given room for
// room objects of its size (0: none).
func elements(s string, at int, fields []Field, room int, f func(elem string, members []Field) bool) (int, []Field) {
	i, n := skipSpace(s, at+1), 0
	for i < len(s) && s[i] != ']' {
		var end int
		var members []Field
		if s[i] == '{' {
			start := len(fields)
			end, fields = readMembers(s, i, fields)
			members = fields[start:len(fields):len(fields)]
			if n++; n == 1 && cap(fields) < len(fields)*room {
				// The first object keeps the slice it is a window of.
				fields = make([]Field, 0, len(fields)*room)
			}
		} else {
			end = valueEnd(s, i)
		}
		if !f(s[i:end], members) {
			return end, fields
		}
		i = skipSpace(s, end)
		if i < len(s) && s[i] == ',' {
			i = skipSpace(s, i+1)
		}
	}
	return min(i+1, len(s)), fields
}

// Members appends the members of the JSON object obj (valid JSON,
// starting with '{') to fields, in order, duplicates included: each name
// unescaped, each value as its JSON text.
func Members(obj string, fields []Field) []Field {
	_, fields = readMembers(obj, 0, fields)
	return fields
}

// readMembers is Members of the object at s[at:], and where it ends.
func readMembers(s string, at int, fields []Field) (int, []Field) {
	i := skipSpace(s, at+1)
	for i < len(s) && s[i] == '"' {
		kend, escaped := stringEnd(s, i)
		name := s[i+1 : kend-1]
		if escaped {
			name = gjson.Parse(s[i:kend]).Str
		}
		i = skipSpace(s, kend)
		i = skipSpace(s, i+1) // the colon
		vend := valueEnd(s, i)
		fields = append(fields, Field{Name: name, Raw: s[i:vend]})
		i = skipSpace(s, vend)
		if i < len(s) && s[i] == ',' {
			i = skipSpace(s, i+1)
		}
	}
	return min(i+1, len(s)), fields // past the closing brace
}

// stringValue is the string a JSON string's text (with its quotes) holds.
func stringValue(raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	return gjson.Parse(raw).Str
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

// valueEnd is where the value starting at s[i] ends.
func valueEnd(s string, i int) int {
	switch s[i] {
	case '"':
		end, _ := stringEnd(s, i)
		return end
	case '{', '[':
		return nestedEnd(s, i)
	}
	for i < len(s) {
		switch s[i] {
		case ',', '}', ']', ' ', '\n', '\r', '\t':
			return i
		}
		i++
	}
	return i
}

// stringEnd is where the string whose quote is s[i] ends (after its
// closing quote), and whether it has an escape. Most strings are short
// (names, IDs): their bytes are looked at one by one; a long one's rest
// is searched for its quotes.
func stringEnd(s string, i int) (int, bool) {
	escaped := false
	j := i + 1
	for n := min(len(s), j+shortString); j < n; j++ {
		switch s[j] {
		case '"':
			return j + 1, escaped
		case '\\':
			escaped = true
			j++
		}
	}
	for j < len(s) {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return len(s), escaped
		}
		q := j + k
		if strings.IndexByte(s[j:q], '\\') < 0 {
			return q + 1, escaped
		}
		escaped = true
		n := 0 // the backslashes right before the quote
		for n < q-j && s[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1, escaped
		}
		j = q + 1
	}
	return len(s), escaped
}

// shortString is how many bytes of a string are looked at one by one.
const shortString = 32

// nestedEnd is where the object or array starting at s[i] ends.
func nestedEnd(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch s[i] {
		case '"':
			i, _ = stringEnd(s, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}
