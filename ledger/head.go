package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/billsnap/billsnap/internal/atomicfile"
)

// The head of the chain is recorded outside the ledger, in a small file
// beside it (ledger.jsonl.head), written whole (atomically) by every
// write once its line is synced, under the ledger's lock. A line cut off
// the end of the ledger leaves no trace in the ledger itself (the chain
// still holds up to its new last line), but it no longer reaches the head
// recorded: verify, every write and every read compare the two.
//
// A write that dies between its synced line and its head leaves the
// ledger one complete, chained line past the head recorded: that is
// accepted, and the next write records the head again. A store from
// before the head has none: the first write records it.

// Mark is the head of the chain as a write recorded it: the newest line's
// seq and hash, the lines and bytes of the ledger up to it, and when.
type Mark struct {
	Seq   int       `json:"seq"`
	Lines int       `json:"lines"`
	Bytes int       `json:"bytes"`
	Hash  string    `json:"hash"`
	At    time.Time `json:"at"`
}

// HeadError is a ledger that does not reach the head recorded for it:
// lines cut off its end, or its last lines replaced.
type HeadError struct {
	Path string
	Why  string
}

func (e *HeadError) Error() string { return fmt.Sprintf("ledger %s: %s", e.Path, e.Why) }

// headPath is the file of the ledger's recorded head.
func (l *Ledger) headPath() string { return l.file.Path + ".head" }

// mark is the head recorded, and whether there is one.
func (l *Ledger) mark() (Mark, bool, error) {
	b, err := os.ReadFile(l.headPath())
	if errors.Is(err, os.ErrNotExist) {
		return Mark{}, false, nil
	}
	if err != nil {
		return Mark{}, false, fmt.Errorf("ledger head: %w", err)
	}
	var m Mark
	if err := json.Unmarshal(b, &m); err != nil || m.Lines < 1 || len(m.Hash) != len(Genesis) {
		return Mark{}, false, &HeadError{Path: l.file.Path, Why: fmt.Sprintf("its head recorded in %s is not a head (seq, lines, bytes, hash): the file was changed", l.headPath())}
	}
	return m, true, nil
}

// record writes the head of lines (a chained ledger as it now stands).
func (l *Ledger) record(lines [][]byte) error {
	if len(lines) == 0 {
		return nil
	}
	at := time.Now()
	if l.now != nil {
		at = l.now()
	}
	last := lines[len(lines)-1]
	m := Mark{Seq: lastSeq(last), Lines: len(lines), Bytes: size(lines), Hash: lastHash(last), At: at.UTC()}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(l.headPath(), append(b, '\n')); err != nil {
		return fmt.Errorf("ledger head: %w", err)
	}
	return nil
}

// size is the bytes of lines in the file, each with its newline.
func size(lines [][]byte) int {
	n := 0
	for _, line := range lines {
		n += len(line) + 1
	}
	return n
}

// reaches checks that lines reach the head m recorded: as many lines at
// least, the line at the head carrying its hash, the bytes up to it as
// many. It gives how many lines come after the head.
func (m Mark) reaches(path string, lines [][]byte) (int, error) {
	recorded := fmt.Sprintf("its head recorded at %s is seq %d (line %d, %s…)", m.At.Format(time.RFC3339), m.Seq, m.Lines, short(m.Hash))
	if len(lines) < m.Lines {
		end := "the ledger is empty"
		if len(lines) > 0 {
			end = fmt.Sprintf("the ledger ends at seq %d (line %d)", lastSeq(lines[len(lines)-1]), len(lines))
		}
		return 0, &HeadError{Path: path, Why: end + ", and " + recorded + ": its last lines were deleted or cut off"}
	}
	at := lines[m.Lines-1]
	if lastHash(at) != m.Hash || size(lines[:m.Lines]) != m.Bytes {
		return 0, &HeadError{Path: path, Why: fmt.Sprintf("line %d (seq %d) is not the head recorded: %s, of %d bytes up to it: lines were deleted, inserted or replaced", m.Lines, lastSeq(at), recorded, m.Bytes)}
	}
	return len(lines) - m.Lines, nil
}
