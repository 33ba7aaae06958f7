package plural

import "testing"

func TestCounts(t *testing.T) {
	for got, want := range map[string]string{
		Of(0, "finding"):                       "0 findings",
		Of(1, "finding"):                       "1 finding",
		Of(int64(2), "request"):                "2 requests",
		Irregular(1, "entry", "entries"):       "1 entry",
		Irregular(uint(3), "entry", "entries"): "3 entries",
		Word(1, "was", "were"):                 "was",
		Word(4, "was", "were"):                 "were",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
