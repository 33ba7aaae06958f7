package ledger

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// aFewEntries writes a waiver, a lift, a second waiver and a sign-off.
func aFewEntries(t *testing.T) *Ledger {
	t.Helper()
	l := testLedger(t)
	m, err := l.Waive(alice, aWaiver())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lift(alice, m.ID); err != nil {
		t.Fatal(err)
	}
	w := aWaiver()
	w.EntityID = "c2"
	if _, err := l.Waive(alice, w); err != nil {
		t.Fatal(err)
	}
	if _, err := l.SignOff(alice, SignOff{Snapshot: "s1", Period: "2026-10", Name: "Dana", Role: "controller"}); err != nil {
		t.Fatal(err)
	}
	return l
}

func readLines(t *testing.T, l *Ledger) [][]byte {
	t.Helper()
	lines, err := l.file.Lines()
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func writeLines(t *testing.T, l *Ledger, lines [][]byte) {
	t.Helper()
	if err := os.WriteFile(l.file.Path, append(bytes.Join(lines, []byte{'\n'}), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every entry written carries the hash of the one before and its own, and
// the chain verifies from the first line to the head.
func TestTheLedgerIsAChain(t *testing.T) {
	l := aFewEntries(t)
	head, err := l.Verify()
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := l.Read()
	if head.Entries != 4 || head.Hash != entries[3].Hash || entries[0].Prev != Genesis {
		t.Fatalf("head %+v; entries %+v", head, entries)
	}
	for i := 1; i < len(entries); i++ {
		if entries[i].Prev != entries[i-1].Hash || entries[i].Hash == "" {
			t.Fatalf("entry %d: prev %s, hash of the one before %s", i+1, entries[i].Prev, entries[i-1].Hash)
		}
	}
}

// A line changed in one byte is named, whichever line it is: the first,
// a middle one, the head.
func TestOneEditedLineIsNamed(t *testing.T) {
	for line := 1; line <= 4; line++ {
		l := aFewEntries(t)
		lines := readLines(t, l)
		lines[line-1] = bytes.Replace(lines[line-1], []byte(`"by":"alice"`), []byte(`"by":"alicf"`), 1)
		writeLines(t, l, lines)
		_, err := l.Verify()
		var b *BrokenError
		if !errors.As(err, &b) || b.Line != line || b.Seq != line || !strings.Contains(b.Why, "changed after it was written") {
			t.Fatalf("line %d edited: %v", line, err)
		}
	}
}

// A line whose hash is made again to fit its new bytes, a line taken out
// and two lines swapped all break the link to the line after them.
func TestARewrittenChainIsNamedWhereItBreaks(t *testing.T) {
	l := aFewEntries(t)
	lines := readLines(t, l)
	forged := bytes.Replace(lines[1], []byte(`"by":"alice"`), []byte(`"by":"mallo"`), 1)
	body := append(append([]byte{}, forged[:len(forged)-len(`,"hash":"`)-64-2]...), '}')
	lines[1] = seal(body)
	writeLines(t, l, lines)
	_, err := l.Verify()
	var b *BrokenError
	if !errors.As(err, &b) || b.Line != 3 || !strings.Contains(b.Why, `"prev"`) {
		t.Fatalf("a resealed line 2: %v", err)
	}

	l = aFewEntries(t)
	lines = readLines(t, l)
	writeLines(t, l, append(lines[:1:1], lines[2:]...))
	if _, err := l.Verify(); !errors.As(err, &b) || b.Line != 2 || b.Seq != 3 {
		t.Fatalf("line 2 taken out: %v", err)
	}
}

// An old ledger, written before the chain, is refused by writes, which
// leave it as it is, until ledger chain chains it from its first line:
// each line kept byte for byte, the file as it was kept beside it; the
// next write is chained after it.
func TestAnOldLedgerIsChainedOnlyByChain(t *testing.T) {
	l := testLedger(t)
	old := [][]byte{
		[]byte(`{"seq":1,"at":"2026-10-01T09:00:00Z","by":"ann","action":"waive","waiver":{"id":"W1","rule":"r","entity_id":"e","reason":"x","owner":"o","expires":"2026-12-31"}}`),
		[]byte(`{"seq":2,"at":"2026-10-02T09:00:00Z","by":"ann","action":"lift","lift":"W1"}`),
	}
	writeLines(t, l, old)
	if _, err := l.Verify(); err == nil || !strings.Contains(err.Error(), "line 1 (seq 1)") {
		t.Fatalf("verify of an unchained ledger: %v", err)
	}
	var refused *RefusedError
	if _, err := l.Waive(alice, aWaiver()); !errors.As(err, &refused) || !strings.Contains(err.Error(), "billsnap ledger chain") {
		t.Fatalf("a write on an unchained ledger: %v", err)
	}
	if lines := readLines(t, l); len(lines) != 2 || !bytes.Equal(lines[1], old[1]) {
		t.Fatalf("the refused write changed the ledger: %q", lines)
	}
	if n, err := l.Chain(); n != 2 || err != nil {
		t.Fatalf("chain: %d, %v", n, err)
	}
	if _, err := l.Waive(alice, aWaiver()); err != nil {
		t.Fatal(err)
	}
	head, err := l.Verify()
	if err != nil || head.Entries != 3 {
		t.Fatalf("after the upgrade: %+v, %v", head, err)
	}
	lines := readLines(t, l)
	for i, o := range old {
		if !bytes.HasPrefix(lines[i], o[:len(o)-1]) {
			t.Fatalf("line %d changed in the upgrade:\n%s\n%s", i+1, o, lines[i])
		}
	}
	kept, err := os.ReadFile(l.file.Path + ".unchained")
	if err != nil || !bytes.Equal(kept, append(bytes.Join(old, []byte{'\n'}), '\n')) {
		t.Fatalf("the unchained ledger kept: %q, %v", kept, err)
	}
}

// The entries a ledger keeps between reads are those of its file as it
// is: a line appended by another process is read, and so is a line
// changed by hand under a running workspace, which then takes no write.
func TestTheKeptEntriesFollowTheFile(t *testing.T) {
	l := aFewEntries(t)
	if _, err := l.Read(); err != nil {
		t.Fatal(err)
	}
	other := New(l.Path(), l.now)
	if _, err := other.SignOff(alice, SignOff{Snapshot: "s2", Name: "Dana", Role: "controller"}); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, l)
	lines[1] = bytes.Replace(lines[1], []byte(`"by":"alice"`), []byte(`"by":"bobby"`), 1)
	writeLines(t, l, lines)
	e, err := l.Read()
	if err != nil || len(e) != 5 || e[1].By != "bobby" || e[4].SignOff == nil || e[4].SignOff.Snapshot != "s2" {
		t.Fatalf("entries after another writer's line and an edit: %+v, %v", e, err)
	}
	var refused *RefusedError
	if _, err := l.Lift(alice, "W3"); !errors.As(err, &refused) {
		t.Fatalf("a write after the edit: %v", err)
	}
}
