package snip

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// String keeps a short value whole and cuts a long one at a character's
// start, stating its length, within the bound.
func TestString(t *testing.T) {
	long := strings.Repeat("9", 1<<20)
	if got := String("short", 100); got != "short" {
		t.Errorf("String(short) = %q", got)
	}
	got := String(long, 100)
	if len(got) > 100 || !strings.HasSuffix(got, "… (1048576 bytes)") || !strings.HasPrefix(got, "999") {
		t.Errorf("String(a million digits, 100) = %q (%d bytes)", got, len(got))
	}
	got = String(strings.Repeat("é", 100), 51)
	if !utf8.ValidString(got) || len(got) > 51 {
		t.Errorf("String cuts a character: %q", got)
	}
}

// A Writer passes short lines as they are and cuts a long one, however
// it is split across writes, to the bound, its length stated.
func TestWriterCutsEveryLongLine(t *testing.T) {
	var b bytes.Buffer
	w := &Writer{W: &b}
	long := strings.Repeat("x", 1<<20)
	for _, p := range []string{"a short line\n", "error: ", long[:1000], long[1000:], " end\nnext\n", long + "\n"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "a short line" || lines[2] != "next" {
		t.Fatalf("lines: %d, first %q, third %.40q", len(lines), lines[0], lines[2])
	}
	for i, l := range lines {
		if len(l) > Line {
			t.Errorf("line %d: %d bytes", i+1, len(l))
		}
	}
	if want := "… (1048587 bytes)"; !strings.HasPrefix(lines[1], "error: xxx") || !strings.HasSuffix(lines[1], want) {
		t.Errorf("line 2 ends %q, want %q", lines[1][len(lines[1])-40:], want)
	}
	if !strings.HasSuffix(lines[3], "… (1048576 bytes)") {
		t.Errorf("line 4 ends %q", lines[3][len(lines[3])-40:])
	}
}

// JSON keeps a value's encoding within the bound, however many of its
// characters encoding/json escapes.
func TestJSON(t *testing.T) {
	for _, s := range []string{strings.Repeat("9", 1e6), strings.Repeat("\x01<", 1e5), strings.Repeat("é\xff", 1e5), "short"} {
		got := JSON(s, 2048)
		b, _ := json.Marshal(got)
		if len(b) > 2048 || !utf8.ValidString(strings.ToValidUTF8(got, "")) {
			t.Errorf("JSON(%.10q…) encodes in %d bytes", s, len(b))
		}
		if len(s) > 2048 && !strings.HasSuffix(got, fmt.Sprintf("… (%d bytes)", len(s))) {
			t.Errorf("JSON(%.10q…) ends %q", s, got[max(0, len(got)-30):])
		}
		if len(s) < 100 && got != s {
			t.Errorf("JSON(%q) = %q", s, got)
		}
	}
}
