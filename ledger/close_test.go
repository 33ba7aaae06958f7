package ledger

import (
	"errors"
	"testing"
)

// signedPeriod records a sign-off of s1 for 2026-10 and returns it.
func signedPeriod(t *testing.T, l *Ledger) Signed {
	t.Helper()
	s, err := l.SignOff(alice, SignOff{Snapshot: "s1", Period: "2026-10", Name: "Dana", Role: "controller", Digest: "d1"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func aClose(s Signed) Close {
	return Close{Period: "2026-10", Snapshot: "s1", SignOff: s.ID, Digest: "d1", Findings: 2,
		Totals: map[string]Total{"EUR": {Net: "5.00", Gross: "7.00"}}}
}

// A close rests on a sign-off; sent twice it closes once; another close of
// a closed period is refused until it is reopened, with a reason.
func TestAPeriodClosesOnceAndReopensWithAReason(t *testing.T) {
	l := testLedger(t)
	if _, err := l.ClosePeriod(alice, Close{Period: "2026-10", Snapshot: "s1", SignOff: "S9"}); err == nil {
		t.Fatal("a close without its sign-off was recorded")
	}
	s := signedPeriod(t, l)
	c, err := l.ClosePeriod(Actor{By: "dana@example.com", Auth: "header"}, aClose(s))
	if err != nil || c.ID == "" || c.By != "dana@example.com" || c.Auth != "header" {
		t.Fatalf("close: %+v, %v", c, err)
	}
	if again, err := l.ClosePeriod(alice, aClose(s)); err != nil || again.ID != c.ID {
		t.Fatalf("the same close again: %+v, %v", again, err)
	}
	other := aClose(s)
	other.Digest = "d2"
	var ce *ClosedError
	if _, err := l.ClosePeriod(alice, other); !errors.As(err, &ce) || ce.Closed.ID != c.ID {
		t.Fatalf("a second close: %v", err)
	}
	if _, err := l.ReopenPeriod(alice, "2026-10", " "); err == nil {
		t.Fatal("a reopen without a reason was recorded")
	}
	if _, err := l.ReopenPeriod(alice, "2026-09", "typo"); !errors.Is(err, ErrNotClosed) {
		t.Fatalf("reopen of an open period: %v", err)
	}
	r, err := l.ReopenPeriod(alice, "2026-10", "credit note booked late")
	if err != nil || r.Reopened == nil || r.Reopened.Reopen.Reason != "credit note booked late" {
		t.Fatalf("reopen: %+v, %v", r, err)
	}
	entries, _ := l.Read()
	if _, closed := Fold(entries).ClosedPeriod("2026-10"); closed {
		t.Fatal("the period is still closed after its reopen")
	}
	if _, err := l.ClosePeriod(alice, other); err != nil {
		t.Fatalf("close after the reopen: %v", err)
	}
}

// While a period is closed, a waiver of a finding its close covers, the
// lift of such a waiver and a sign-off of the period are post-close
// adjustments of it; a waiver of another finding is not, nor anything
// after the reopen.
func TestWhatComesAfterACloseIsAnAdjustment(t *testing.T) {
	l := testLedger(t)
	l.Covering(func(c Closed, rule, entity string) bool { return rule == "charge_not_invoiced" && entity == "c1" })
	c, err := l.ClosePeriod(alice, aClose(signedPeriod(t, l)))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := l.Waive(Actor{By: "bob"}, aWaiver())
	other := aWaiver()
	other.EntityID = "c9"
	l.Waive(Actor{By: "bob"}, other)
	l.Lift(Actor{By: "carol"}, m.ID)
	l.SignOff(alice, SignOff{Snapshot: "s2", Period: "2026-10", Name: "Dana", Role: "controller"})
	l.ReopenPeriod(alice, "2026-10", "late credit")
	l.Waive(Actor{By: "bob"}, aWaiver())
	entries, _ := l.Read()
	adj := Adjustments(entries, Fold(entries).Closes[0])
	if len(adj) != 3 || adj[0].Action != ActWaive || adj[0].By != "bob" || adj[1].Action != ActLift || adj[2].Action != ActSignOff {
		t.Fatalf("adjustments of %s: %+v", c.ID, adj)
	}
}
