package ledger

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// Comments are chained, attributed entries that make each finding's
// thread, oldest first; the same text sent again by the same person is
// one comment; the ledger verifies, and a comment line without its text
// is not a valid entry.
func TestCommentsMakeThreadsAndChain(t *testing.T) {
	l := testLedger(t)
	c := Comment{Rule: "charge_not_invoiced", EntityID: "c1", Text: "  Asked billing ops why.\nTicket 42.  "}
	first, err := l.AddComment(alice, c)
	if err != nil || first.ID == "" || first.By != "alice" || first.Text != "Asked billing ops why.\nTicket 42." {
		t.Fatalf("comment: %+v, %v", first, err)
	}
	if again, err := l.AddComment(alice, c); err != nil || again.ID != first.ID {
		t.Fatalf("the same comment again: %+v, %v; want %s given back", again, err, first.ID)
	}
	if _, err := l.AddComment(Actor{By: "carol", Auth: "tokens"}, Comment{Rule: c.Rule, EntityID: "c1", Text: "Fixed at the source."}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AddComment(alice, Comment{Rule: c.Rule, EntityID: "c2", Text: "Another finding."}); err != nil {
		t.Fatal(err)
	}
	entries, err := l.Read()
	if err != nil || len(entries) != 3 {
		t.Fatalf("entries %d, %v", len(entries), err)
	}
	thread := Comments(entries)[AssignKey{c.Rule, "c1"}]
	if len(thread) != 2 || thread[0].By != "alice" || thread[1].By != "carol" || thread[1].Auth != "tokens" || thread[1].At.IsZero() {
		t.Fatalf("the thread of c1: %+v", thread)
	}
	if _, err := l.Verify(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	b, _ := os.ReadFile(l.Path())
	line := bytes.SplitAfter(b, []byte("\n"))[1]
	if _, err := ParseLines(l.Path(), [][]byte{bytes.Replace(line, []byte(`"text":"Fixed at the source."`), []byte(`"text":""`), 1)}); err == nil {
		t.Fatal("a comment without its text was read as valid")
	}
}

// A comment with no text, over 4,000 bytes, or with a control character
// (an escape, a bidirectional override) is refused before anything is
// written; tabs and line breaks are text.
func TestABadCommentIsRefused(t *testing.T) {
	l := testLedger(t)
	for _, c := range []Comment{{Rule: "r", EntityID: "e", Text: "  "}, {Rule: "r", Text: "no record"},
		{Rule: "r", EntityID: "e", Text: strings.Repeat("x", 4001)}, {Rule: "r", EntityID: "e", Text: "red \x1b[31m"},
		{Rule: "r", EntityID: "e", Text: "evil \u202e txt"}} {
		var invalid *InvalidError
		if _, err := l.AddComment(alice, c); !errors.As(err, &invalid) {
			t.Errorf("%.40q: %v", c.Text, err)
		}
	}
	if e, _ := l.Read(); len(e) != 0 {
		t.Fatalf("%d entries written", len(e))
	}
	if _, err := l.AddComment(alice, Comment{Rule: "r", EntityID: "e", Text: strings.Repeat("x", 3999) + "\t"}); err != nil {
		t.Fatalf("4,000 bytes with a tab: %v", err)
	}
}
