package ledger

import (
	"errors"
	"strings"
	"testing"
)

func anExplanation() Explanation {
	return Explanation{Period: "2026-10", Measure: "billed", Currency: "EUR", Previous: "1000.00", Current: "9000.00", Snapshot: "s1",
		Text: "the annual plans renew in October"}
}

// An explanation is a chained entry with its figures, attributed; sent
// twice it records once; its text is bounded and plain; one of a closed
// period is a post-close adjustment of its close.
func TestAnExplanationIsAnEntryWithItsFigures(t *testing.T) {
	l := testLedger(t)
	x, err := l.Explain(Actor{By: "erin", Auth: "tokens"}, anExplanation())
	if err != nil || x.ID == "" || x.By != "erin" || x.Auth != "tokens" || x.Previous != "1000.00" || x.Current != "9000.00" {
		t.Fatalf("explain: %+v, %v", x, err)
	}
	if again, err := l.Explain(alice, anExplanation()); err != nil || again.ID != x.ID {
		t.Fatalf("the same explanation again: %+v, %v", again, err)
	}
	var invalid *InvalidError
	for name, text := range map[string]string{"empty": " ", "escape": "moved \x1b[31m", "bidi": "abc\u202edcba", "NUL": "a\x00b",
		"long": strings.Repeat("é", 2001)} {
		y := anExplanation()
		y.Text = text
		if _, err := l.Explain(alice, y); !errors.As(err, &invalid) {
			t.Errorf("text %s: %v, want it refused as invalid", name, err)
		}
	}
	y := anExplanation()
	y.Text, y.Current = "two lines\r\nand a\ttab", "9100.00"
	if _, err := l.Explain(alice, y); err != nil {
		t.Errorf("line breaks and a tab: %v", err)
	}
	if _, err := l.Verify(); err != nil {
		t.Fatal(err)
	}
	entries, err := l.Read()
	if err != nil {
		t.Fatal(err)
	}
	if xs := Fold(entries).Explanations; len(xs) != 2 || xs[0].ID != x.ID || xs[0].Text != anExplanation().Text {
		t.Fatalf("folded: %+v", xs)
	}
	s := signedPeriod(t, l)
	c, err := l.ClosePeriod(alice, aClose(s))
	if err != nil {
		t.Fatal(err)
	}
	y.Text = "after the close"
	if _, err := l.Explain(alice, y); err != nil {
		t.Fatal(err)
	}
	entries, _ = l.Read()
	if adj := Adjustments(entries, c); len(adj) != 1 || adj[0].Action != ActExplain {
		t.Fatalf("adjustments of the close: %+v", adj)
	}
}
