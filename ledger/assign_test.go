package ledger

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// Assignments are chained entries: the latest of a finding stands, an
// equal one sent again records nothing, the ledger verifies, and a line
// whose assignment lacks its assignee is not a valid entry.
func TestAssignmentsStandLatestAndChain(t *testing.T) {
	l := testLedger(t)
	one := Assignment{Rule: "charge_not_invoiced", EntityID: "c1", Assignee: "erin", Due: "2026-12-01"}
	two := Assignment{Rule: "charge_not_invoiced", EntityID: "c2", Assignee: "erin", Due: "2026-12-03"}
	if e, err := l.Assign(alice, []Assignment{one, two}); err != nil || e == nil || e.Action != ActAssign || len(e.Assign) != 2 {
		t.Fatalf("assign: %+v, %v", e, err)
	}
	if e, err := l.Assign(alice, []Assignment{one}); err != nil || e != nil {
		t.Fatalf("the same again: %+v, %v; want nothing written", e, err)
	}
	re := one
	re.Assignee = "dana"
	if e, err := l.Assign(Actor{By: "carol"}, []Assignment{re, two}); err != nil || len(e.Assign) != 1 || e.Assign[0] != re {
		t.Fatalf("reassign: %+v, %v; want only the changed one", e, err)
	}
	entries, err := l.Read()
	if err != nil || len(entries) != 2 {
		t.Fatalf("entries %d, %v", len(entries), err)
	}
	got := Assignments(entries)
	if got[AssignKey{one.Rule, "c1"}].Assignee != "dana" || got[AssignKey{one.Rule, "c1"}].By != "carol" || got[AssignKey{one.Rule, "c2"}].By != "alice" {
		t.Fatalf("standing %+v", got)
	}
	if _, err := l.Verify(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	b, _ := os.ReadFile(l.Path())
	lines := bytes.SplitAfter(b, []byte("\n"))
	if _, err := ParseLines(l.Path(), [][]byte{bytes.Replace(lines[0], []byte(`"assignee":"erin"`), []byte(`"assignee":""`), 1)}); err == nil {
		t.Fatal("an assignment without its assignee was read as valid")
	}
}

// An assignment without a date as YYYY-MM-DD, or naming no one, or with a
// control character in the name, is refused before anything is written.
func TestABadAssignmentIsRefused(t *testing.T) {
	l := testLedger(t)
	for _, a := range []Assignment{{Rule: "r", EntityID: "e", Assignee: "erin", Due: "tomorrow"},
		{Rule: "r", EntityID: "e", Due: "2026-12-01"}, {Rule: "r", EntityID: "e", Assignee: "e\x1b[31m", Due: "2026-12-01"}} {
		var invalid *InvalidError
		if _, err := l.Assign(alice, []Assignment{a}); !errors.As(err, &invalid) {
			t.Errorf("%+v: %v", a, err)
		}
	}
	if e, _ := l.Read(); len(e) != 0 {
		t.Fatalf("%d entries written", len(e))
	}
}
