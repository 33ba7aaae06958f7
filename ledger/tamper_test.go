package ledger

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/ledger/ledgertest"
)

// closedLedger is aFewEntries and a close of 2026-10 on its sign-off:
// five lines, the last a close.
func closedLedger(t *testing.T) *Ledger {
	t.Helper()
	l := aFewEntries(t)
	if _, err := l.ClosePeriod(alice, Close{Period: "2026-10", Snapshot: "s1", SignOff: "S4", Digest: "d"}); err != nil {
		t.Fatal(err)
	}
	return l
}

// sealAfter is body (a JSON object without chain fields) chained after
// line: what a forger who knows the chain writes.
func sealAfter(line []byte, body string) []byte { return ledgertest.Sealed(lastHash(line), body) }

// join is lines as a file holds them.
func join(lines [][]byte) []byte { return append(bytes.Join(lines, []byte{'\n'}), '\n') }

// rechain seals lines again from line from (0-based) on, each after the
// one before: the whole chain made again after an edit.
func rechain(lines [][]byte, from int) [][]byte {
	out := append([][]byte{}, lines...)
	for i := from; i < len(out); i++ {
		body := out[i][:len(out[i])-len(`,"hash":"`)-64-2]
		body = body[:bytes.LastIndex(body, []byte(`,"prev":"`))]
		prev := []byte(Genesis)
		if i > 0 {
			prev = []byte(lastHash(out[i-1]))
		}
		out[i] = seal(append(append(append([]byte{}, body...), `,"prev":"`...), append(prev, `"}`...)...))
	}
	return out
}

// tampers are what can be done to a chained ledger of five lines (lines),
// each with the words verify must name it by.
func tampers() []struct {
	name, names string
	do          func(lines [][]byte) []byte
} {
	malformed := func(body string) func([][]byte) []byte {
		return func(lines [][]byte) []byte { return join(append(lines, sealAfter(lines[4], body))) }
	}
	swap := func(lines [][]byte) []byte {
		lines[1], lines[2] = lines[2], lines[1]
		return join(lines)
	}
	return []struct {
		name, names string
		do          func(lines [][]byte) []byte
	}{
		{"edited line", "line 2 (seq 2)", func(l [][]byte) []byte {
			l[1] = bytes.Replace(l[1], []byte(`"by":"alice"`), []byte(`"by":"mallo"`), 1)
			return join(l)
		}},
		{"deleted middle line", "line 3 (seq 4)", func(l [][]byte) []byte { return join(append(l[:2:2], l[3:]...)) }},
		{"deleted last line", "ends at seq 4 (line 4), and its head recorded", func(l [][]byte) []byte { return join(l[:4]) }},
		{"half-truncated last line", "line 5 does not fit", func(l [][]byte) []byte { return append(join(l[:4]), l[4][:len(l[4])/2]...) }},
		{"last line without its newline", "line 5 does not fit", func(l [][]byte) []byte { return bytes.TrimSuffix(join(l), []byte{'\n'}) }},
		{"reordered lines", "line 2 (seq 3)", swap},
		{"CRLF everywhere", "line 1 (seq 1)", func(l [][]byte) []byte { return bytes.ReplaceAll(join(l), []byte("\n"), []byte("\r\n")) }},
		{"CRLF on one line", "line 3 (seq 3)", func(l [][]byte) []byte { l[2] = append(l[2], '\r'); return join(l) }},
		{"chained waive without its waiver", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"waive"}`)},
		{"chained waive with a waiver without its ID", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"waive","waiver":{"rule":"r","entity_id":"e","expires":"2026-12-31"}}`)},
		{"chained lift without its waiver ID", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"lift"}`)},
		{"chained signoff without its sign-off", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"signoff"}`)},
		{"chained close without its close", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"close"}`)},
		{"chained reopen without its reopen", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"reopen"}`)},
		{"chained explain without its explanation", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"explain"}`)},
		{"chained explain without its figures", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"explain","explanation":{"id":"X6","period":"2026-10","measure":"billed","currency":"EUR","text":"t"}}`)},
		{"chained unknown action", "line 6 (seq 6)", malformed(`{"seq":6,"at":"2026-11-25T12:00:00Z","by":"m","action":"erase"}`)},
		{"re-chained after an edit", "line 5 (seq 5) is not the head recorded", func(l [][]byte) []byte {
			l[1] = bytes.Replace(l[1], []byte(`"by":"alice"`), []byte(`"by":"mallo"`), 1)
			return join(rechain(l, 1))
		}},
		{"duplicated line", "line 4 (seq 3)", func(l [][]byte) []byte {
			return join(append(l[:3:3], l[2:]...))
		}},
		{"inserted line", "line 4 (seq 3)", func(l [][]byte) []byte {
			in := sealAfter(l[1], `{"seq":3,"at":"2026-11-25T12:00:00Z","by":"m","action":"lift","lift":"W3"}`)
			return join(append(append(l[:2:2], in), l[2:]...))
		}},
	}
}

// writes are every write of the ledger, each fit to record on the ledger
// as closedLedger leaves it.
var writes = []struct {
	name string
	do   func(l *Ledger) error
}{
	{"waive", func(l *Ledger) error {
		w := aWaiver()
		w.EntityID = "c9"
		_, err := l.Waive(alice, w)
		return err
	}},
	{"lift", func(l *Ledger) error { _, err := l.Lift(alice, "W3"); return err }},
	{"signoff", func(l *Ledger) error {
		_, err := l.SignOff(alice, SignOff{Snapshot: "s2", Period: "2026-11", Name: "Dana", Role: "controller"})
		return err
	}},
	{"close", func(l *Ledger) error {
		_, err := l.ClosePeriod(alice, Close{Period: "2026-10", Snapshot: "s1", SignOff: "S4", Digest: "d"})
		return err
	}},
	{"reopen", func(l *Ledger) error { _, err := l.ReopenPeriod(alice, "2026-10", "a late credit note"); return err }},
	{"explain", func(l *Ledger) error { _, err := l.Explain(alice, anExplanation()); return err }},
}

// Each tamper of the matrix is named by verify, with the line it is at,
// and refused by every write, which leaves the file byte for byte as the
// tamper left it: no write blesses a tamper.
func TestTheTamperMatrix(t *testing.T) {
	for _, tc := range tampers() {
		t.Run(tc.name, func(t *testing.T) {
			l := closedLedger(t)
			tampered := tc.do(readLines(t, l))
			if err := os.WriteFile(l.Path(), tampered, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := New(l.Path(), l.now).Verify(); err == nil || !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("verify: %v; want it to name %q", err, tc.names)
			}
			for _, w := range writes {
				err := w.do(New(l.Path(), l.now))
				if b, _ := os.ReadFile(l.Path()); !bytes.Equal(b, tampered) {
					t.Fatalf("%s changed the tampered file (%v):\n%s", w.name, err, b)
				}
				if err == nil || !strings.Contains(err.Error(), "billsnap ledger verify") {
					t.Fatalf("%s on the tampered ledger: %v; want a refusal naming billsnap ledger verify", w.name, err)
				}
			}
		})
	}
}

// Every write on the ledger as written is taken: the matrix's writes are
// refused for the tamper, not for themselves.
func TestTheMatrixWritesAreTakenOnTheGenuineLedger(t *testing.T) {
	for _, w := range writes {
		if err := w.do(closedLedger(t)); err != nil && !strings.Contains(err.Error(), "closed already") {
			t.Errorf("%s: %v", w.name, err)
		}
	}
}

// A write that died between its synced line and its head leaves the
// ledger one line past its head: verify passes it, the next write takes
// it and records the head again. Two lines past the head are not a write
// cut short: refused.
func TestOneLinePastTheHeadIsAWriteCutShort(t *testing.T) {
	l := closedLedger(t)
	before, err := os.ReadFile(l.headPath())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lift(alice, "W3"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(l.headPath(), before, 0o644) // the head as the crash left it
	if h, err := New(l.Path(), l.now).Verify(); err != nil || h.Ahead != 1 || h.Mark == nil || h.Mark.Seq != 5 {
		t.Fatalf("verify one line past the head: %+v, %v", h, err)
	}
	if _, err := l.SignOff(alice, SignOff{Snapshot: "s2", Name: "Dana", Role: "controller"}); err != nil {
		t.Fatal(err)
	}
	if h, err := l.Verify(); err != nil || h.Ahead != 0 || h.Mark.Seq != 7 || h.Mark.Lines != 7 {
		t.Fatalf("verify after the next write: %+v, %v", h, err)
	}
	os.WriteFile(l.headPath(), before, 0o644)
	err = writes[0].do(l)
	if err == nil || !strings.Contains(err.Error(), "2 lines follow its head recorded") {
		t.Fatalf("a write two lines past the head: %v", err)
	}
}

// A ledger from before the head has none: reads and verify take it, the
// first write records it, and from then a cut is named.
func TestAStoreWithoutAHeadIsAnchoredAtItsFirstWrite(t *testing.T) {
	l := closedLedger(t)
	os.Remove(l.headPath())
	if h, err := l.Verify(); err != nil || h.Mark != nil {
		t.Fatalf("verify without a head: %+v, %v", h, err)
	}
	if _, err := l.Lift(alice, "W3"); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, l)
	writeLines(t, l, lines[:len(lines)-1])
	if _, err := l.Read(); err == nil || !strings.Contains(err.Error(), "ends at seq 5 (line 5), and its head recorded") {
		t.Fatalf("a read of the cut ledger: %v", err)
	}
}

// ledger chain chains a ledger none of whose lines is chained, and
// refuses one with any line chained, whole or in part, and one whose head
// was recorded: chaining is an upgrade, never a way to bless an edit.
func TestChainRefusesAChainedLine(t *testing.T) {
	old := [][]byte{
		[]byte(`{"seq":1,"at":"2026-10-01T09:00:00Z","by":"ann","action":"waive","waiver":{"id":"W1","rule":"r","entity_id":"e","reason":"x","owner":"o","expires":"2026-12-31"}}`),
		[]byte(`{"seq":2,"at":"2026-10-02T09:00:00Z","by":"ann","action":"lift","lift":"W1"}`),
	}
	for i, lines := range [][][]byte{
		readLines(t, aFewEntries(t)),
		{old[0], append([]byte(`{"hash":"x",`), old[1][1:]...)},
		{old[0], bytes.Replace(old[1], []byte(`"lift":"W1"`), []byte(`"lift":"W1","prev":"`+Genesis+`"`), 1)},
		{old[0], append(old[1], '\r')[:len(old[1])-1], sealAfter(old[0], string(old[1]))},
	} {
		l := testLedger(t)
		writeLines(t, l, lines)
		if n, err := l.Chain(); err == nil || !strings.Contains(err.Error(), "carries chain fields already") {
			t.Errorf("case %d: chain of a ledger with a chained line: %d, %v", i, n, err)
		}
		if b, _ := os.ReadFile(l.Path()); !bytes.Equal(b, join(lines)) {
			t.Errorf("case %d: the refused chain changed the file", i)
		}
	}
	l := closedLedger(t)
	lines := readLines(t, l)
	for i := range lines {
		lines[i] = lines[i][:bytes.LastIndex(lines[i], []byte(`,"prev":"`))]
		lines[i] = append(lines[i], '}')
	}
	writeLines(t, l, lines)
	if _, err := l.Chain(); err == nil || !strings.Contains(err.Error(), "never chained again") {
		t.Errorf("chain of a ledger stripped of its chain, its head recorded: %v", err)
	}
	l = testLedger(t)
	writeLines(t, l, old)
	if n, err := l.Chain(); n != 2 || err != nil {
		t.Fatalf("chain of an unchained ledger: %d, %v", n, err)
	}
	if h, err := l.Verify(); err != nil || h.Entries != 2 || h.Mark == nil || h.Mark.Seq != 2 {
		t.Fatalf("verify after chain: %+v, %v", h, err)
	}
	if _, err := l.Chain(); err == nil {
		t.Fatal("a chained ledger was chained again")
	}
}

// A head file that is not a head is named by verify, reads and writes.
func TestAHeadThatIsNotAHeadIsNamed(t *testing.T) {
	l := closedLedger(t)
	os.WriteFile(l.headPath(), []byte("{}\n"), 0o644)
	if _, err := l.Verify(); err == nil || !strings.Contains(err.Error(), "is not a head") {
		t.Fatalf("verify: %v", err)
	}
	if _, err := l.Read(); err == nil || !strings.Contains(err.Error(), "is not a head") {
		t.Fatalf("read: %v", err)
	}
	if err := writes[0].do(l); err == nil || !strings.Contains(err.Error(), "billsnap ledger verify") {
		t.Fatalf("write: %v", err)
	}
}

// Fold passes over an entry without the part its action needs, one Read
// refuses: it never dereferences a nil.
func TestFoldPassesOverAnEntryWithoutItsPart(t *testing.T) {
	st := Fold([]Entry{{Action: ActWaive}, {Action: ActLift}, {Action: ActSignOff}, {Action: ActClose}, {Action: ActReopen}})
	if len(st.Waivers)+len(st.SignOffs)+len(st.Closes) != 0 {
		t.Fatalf("the state of entries without their parts: %+v", st)
	}
}
