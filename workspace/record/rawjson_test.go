package record

import "testing"

func TestJSONDepth(t *testing.T) {
	for s, want := range map[string]int{
		`1`:                      0,
		`{"a":[1,{"b":[]}]}`:     4,
		`{"a":"[[[[{{{{"}`:       1,
		`{"a":"\"[[[","b":[[]]}`: 3,
		`[[[[[[[[[[`:             6, // stops at limit+1
		`{"\\":[["\\\"[{"]]}`:    3,
	} {
		if got := jsonDepth(s, 5); got != want {
			t.Errorf("jsonDepth(%s, 5) = %d, want %d", s, got, want)
		}
	}
}
