package record

import (
	"strings"
	"testing"
)

// A snippet keeps a short value as it is, escapes what a terminal or a
// bidirectional text would act on, and cuts a long one at SnippetRunes
// characters (not bytes), saying how many there were.
func TestSnippet(t *testing.T) {
	long := strings.Repeat("é", 100) + "<b>"
	for _, c := range []struct{ in, want string }{
		{`"ann@example.com"`, `"ann@example.com"`},
		{"Note\x1b]0;x\x07\u202e", `Note\x1b]0;x\x07\u202e`},
		{strings.Repeat("x", SnippetRunes), strings.Repeat("x", SnippetRunes)},
		{long, strings.Repeat("é", SnippetRunes) + "… (103 characters)"},
		{strings.Repeat("y", 1234), strings.Repeat("y", SnippetRunes) + "… (1,234 characters)"},
	} {
		if got := Snippet(c.in); got != c.want {
			t.Errorf("Snippet(%.20q…) = %q, want %q", c.in, got, c.want)
		}
	}
}
