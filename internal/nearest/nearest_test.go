package nearest

import "testing"

// The nearest word is found through a typo (a letter missing, extra,
// wrong, or two swapped), the first of equals wins, and a word too far
// from every choice has none.
func TestTheNearestWord(t *testing.T) {
	commands := []string{"demo", "export", "reconcile", "report", "run", "status", "check-config"}
	for _, c := range []struct{ word, want string }{
		{"exprot", "export"},
		{"expor", "export"},
		{"exportt", "export"},
		{"reconcle", "reconcile"},
		{"statsu", "status"},
		{"rn", "run"},
		{"check-conifg", "check-config"},
		{"CHECK-CONFIG", "check-config"},
		{"deploy", ""},
		{"x", ""},
		{"", ""},
		{"frobnicate", ""},
	} {
		if got, _ := Of(c.word, commands); got != c.want {
			t.Errorf("Of(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got, _ := Of("concurency", []string{"concurrency", "currency"}); got != "concurrency" {
		t.Errorf("concurency: %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"exprot", "export", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}, {"añb", "anb", 1}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
