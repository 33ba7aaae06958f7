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

// Brief keeps the first line of an error and the hint indented right
// after it, on one line; a panic's stack is left out.
func TestBrief(t *testing.T) {
	for in, want := range map[string]string{
		"":         "",
		"one line": "one line",
		"HTTP 401: no\n  the service refused the API key from BILLSNAP_API_KEY: check the key there": "HTTP 401: no — the service refused the API key from BILLSNAP_API_KEY: check the key there",
		"the job panicked: boom\ngoroutine 1 [running]:\n  main.f()":                                 "the job panicked: boom",
		"bell\a here\n  hint\x1b[2J": "" + String("bell\a here") + " — " + String("hint\x1b[2J"),
	} {
		if got := Brief(in); got != want {
			t.Errorf("Brief(%q) = %q, want %q", in, got, want)
		}
	}
}
