package termsafe

import "testing"

// FirstLine keeps the first line of an error only, escaped as String
// escapes it.
func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "",
		"one line":              "one line",
		"first\nsecond":         "first",
		"bell\a here\nand more": String("bell\a here"),
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
