package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDepth(t *testing.T) {
	for s, want := range map[string]int{
		`1`:                      0,
		`{"a":[1,{"b":[]}]}`:     4,
		`{"a":"[[[[{{{{"}`:       1,
		`{"a":"\"[[[","b":[[]]}`: 3,
		`[[[[[[[[[[`:             6, // stops at limit+1
		`{"\\":[["\\\"[{"]]}`:    3,
	} {
		if got := Depth(s, 5); got != want {
			t.Errorf("Depth(%s, 5) = %d, want %d", s, got, want)
		}
	}
}

// Text too deep is told apart from text with many brackets side by side
// or inside strings, and a JSON string of it gives it back.
func TestTooDeepAndQuote(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", 6) + strings.Repeat("]", 6) + `}`
	wide := `{"a":[` + strings.Repeat("[],", 10) + `[]],"b":"[[[[[[[[[<&>"}`
	if !TooDeep(deep, 5) || TooDeep(wide, 5) {
		t.Errorf("TooDeep: deep %v, wide %v", TooDeep(deep, 5), TooDeep(wide, 5))
	}
	for _, s := range []string{deep, wide} {
		q := Quote(s)
		if back, ok := Unquote(q); !ok || back != s || Depth(q, 5) != 0 {
			t.Errorf("Quote(%s) = %s, back %q %v", s, q, back, ok)
		}
	}
	if _, ok := Unquote(deep); ok {
		t.Error("an object taken for a JSON string")
	}
}

// Valid agrees with encoding/json on every case here, and takes a value a
// million levels deep that encoding/json (10,000 levels) refuses.
func TestValid(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, ` {"a" : [1, -2.5e+3, 0, "x\"y\\u00e9", true, false, null, {}, []] } `, `"s"`, `0`, `-0.1E5`,
		`{"a":{"b":{"c":[[[]]]}}}`, `[1,[2,[3]],{"k":{"k":"v"}}]`,
		``, ` `, `{`, `}`, `[1,]`, `[,1]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{a:1}`, `[1 2]`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `nul`,
		`"a` + "\x01" + `"`, `"\x"`, `"\u12g4"`, `[1]]`, `[[1]`, `{"a":1}}`, `[}`, `{]`, `{"a":1 "b":2}`, `"a"b`, `1 2`,
	} {
		if got, want := Valid(s), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	}
	deep := strings.Repeat(`[{"a":`, 500_000) + `1` + strings.Repeat(`}]`, 500_000)
	if !Valid(deep) || Valid(deep[:len(deep)-1]) || json.Valid([]byte(deep)) {
		t.Error("a million levels: Valid should take it whole and refuse it cut, where encoding/json refuses it")
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[1,]`, `"\u00e9"`, `-1.5e3`, `{"a":"b"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid(s), json.Valid([]byte(s)); got != want && utf8.ValidString(s) {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	})
}
