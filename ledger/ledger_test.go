package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func testLedger(t testing.TB) *Ledger {
	t.Helper()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	return New(filepath.Join(t.TempDir(), "ledger.jsonl"), func() time.Time { return now })
}

var alice = Actor{By: "alice", From: "127.0.0.1:5000"}

func aWaiver() Waiver {
	return Waiver{Rule: "charge_not_invoiced", EntityID: "c1", Reason: "credit note pending", Owner: "bob", Expires: "2026-12-31"}
}

// A waiver is recorded with who made it, and a second equal one gives the
// first back: a form sent twice makes one waiver.
func TestAWaiverIsRecordedOnce(t *testing.T) {
	l := testLedger(t)
	m, err := l.Waive(alice, aWaiver())
	if err != nil {
		t.Fatal(err)
	}
	if m.ID == "" || m.By != "alice" || m.Lifted != nil || m.At.IsZero() {
		t.Fatalf("made %+v", m)
	}
	again, err := l.Waive(alice, aWaiver())
	if err != nil || again.ID != m.ID {
		t.Fatalf("second waive: %+v, %v; want %s back", again, err, m.ID)
	}
	entries, _ := l.Read()
	if len(entries) != 1 || entries[0].From != alice.From {
		t.Fatalf("entries %+v", entries)
	}
}

// A lifted waiver no longer stands; lifting it again records nothing, and
// lifting one that does not exist is ErrNoWaiver.
func TestALiftIsRecordedOnce(t *testing.T) {
	l := testLedger(t)
	m, _ := l.Waive(alice, aWaiver())
	lifted, err := l.Lift(Actor{By: "carol"}, m.ID)
	if err != nil || lifted.Lifted == nil || lifted.Lifted.By != "carol" {
		t.Fatalf("lift: %+v, %v", lifted, err)
	}
	if _, err := l.Lift(alice, m.ID); err != nil {
		t.Fatal(err)
	}
	entries, _ := l.Read()
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2 (waive, lift)", len(entries))
	}
	if s := Fold(entries); len(s.Standing()) != 0 {
		t.Fatalf("standing after the lift: %+v", s.Standing())
	}
	if _, err := l.Lift(alice, "W99"); !errors.Is(err, ErrNoWaiver) {
		t.Fatalf("lift of an unknown waiver: %v", err)
	}
	// Lifted, the same waiver may be made again: a new one.
	again, err := l.Waive(alice, aWaiver())
	if err != nil || again.ID == m.ID {
		t.Fatalf("waive after lift: %+v, %v", again, err)
	}
}

func TestAnIncompleteWaiverIsRefused(t *testing.T) {
	l := testLedger(t)
	w := aWaiver()
	w.Owner, w.Expires = " ", "31/12/2026"
	if _, err := l.Waive(alice, w); err == nil {
		t.Fatal("a waiver with no owner was recorded")
	}
	w.Owner = "bob"
	if _, err := l.Waive(alice, w); err == nil {
		t.Fatal("a waiver with a bad date was recorded")
	}
	if e, _ := l.Read(); len(e) != 0 {
		t.Fatalf("refused waivers left %d entries", len(e))
	}
}

// Sign-offs are kept as made, each with its own ID; the same sign-off sent
// twice is one.
func TestSignOffs(t *testing.T) {
	l := testLedger(t)
	so := SignOff{Snapshot: "2026-11-25T000000Z", Name: "Dana", Role: "controller", Digest: "abc", Findings: 3,
		Totals: map[string]Total{"EUR": {Net: "1.00", Gross: "3.00"}}}
	a, err := l.SignOff(alice, so)
	if err != nil || a.ID == "" || a.By != "alice" {
		t.Fatalf("sign-off %+v, %v", a, err)
	}
	b, _ := l.SignOff(alice, so)
	if b.ID != a.ID {
		t.Fatalf("the same sign-off twice: %s and %s", a.ID, b.ID)
	}
	so.Comment = "second look"
	c, _ := l.SignOff(alice, so)
	entries, _ := l.Read()
	got := Fold(entries).SignOffsOf(so.Snapshot, "")
	if c.ID == a.ID || len(got) != 2 || got[0].Totals["EUR"].Gross != "3.00" {
		t.Fatalf("sign-offs %+v", got)
	}
	if _, err := l.SignOff(alice, SignOff{Snapshot: "x"}); err == nil {
		t.Fatal("a sign-off with no name was recorded")
	}
}

// A line a writer left without its newline is not read, and no write
// goes after it: the half line is named, never cut off.
func TestATornLastLineIsNotReadAndRefusesWrites(t *testing.T) {
	l := testLedger(t)
	if _, err := l.Waive(alice, aWaiver()); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(l.file.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":2,"action":"wai`)
	f.Close()
	before, _ := os.ReadFile(l.file.Path)
	if e, err := l.Read(); err != nil || len(e) != 1 {
		t.Fatalf("read with a torn line: %d entries, %v", len(e), err)
	}
	var refused *RefusedError
	if _, err := l.Lift(alice, "W1"); !errors.As(err, &refused) || !strings.Contains(err.Error(), "line 2: 22 bytes with no newline") {
		t.Fatalf("a write after a torn line: %v", err)
	}
	if after, _ := os.ReadFile(l.file.Path); !bytes.Equal(after, before) {
		t.Fatalf("the refused write changed the ledger: %q", after)
	}
}

// Writers at once get distinct sequence numbers and lose no entry.
func TestWritersAtOnce(t *testing.T) {
	l := testLedger(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			w := aWaiver()
			w.EntityID = filepath.Join("c", string(rune('a'+i)))
			if _, err := l.Waive(alice, w); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	e, _ := l.Read()
	seen := map[int]bool{}
	for _, x := range e {
		seen[x.Seq] = true
	}
	if len(e) != 20 || len(seen) != 20 {
		t.Fatalf("%d entries, %d distinct seqs; want 20", len(e), len(seen))
	}
}
