package termsafe

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode, 日本": "plain text, ünïcode, 日本",
		`C:\path\x1b`:             `C:\path\x1b`,
		"\x1b[2J\x1b]0;owned\x07": `\x1b[2J\x1b]0;owned\x07`,
		"a\tb\nc\rd":              `a\tb\nc\rd`,
		"nul\x00del\x7f":          `nul\x00del\x7f`,
		"csi\u009b31m":            `csi\u009b31m`,
		"bad \xff\xfe byte":       `bad \xff\xfe byte`,
		"abc\u202egnp.exe":        `abc\u202egnp.exe`,
		"\u2066x\u2069":           `\u2066x\u2069`,
		"":                        "",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLines(t *testing.T) {
	for in, want := range map[string]string{
		"first\nsecond":             "first\nsecond",
		"a \x1b[2J\nb\tc\r\n\u009b": `a \x1b[2J` + "\n" + `b\tc\r` + "\n" + `\u009b`,
	} {
		if got := Lines(in); got != want {
			t.Errorf("Lines(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := Writer{W: &b}
	for _, s := range []string{"# title\n", "a \x1b[2J", " b\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if want := "# title\na \\x1b[2J b\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
