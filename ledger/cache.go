package ledger

import (
	"bytes"
	"slices"
	"sync"
)

// parsed holds the ledger's lines as last read, their entries and how
// their chain stands, so that a read or a write parses and verifies only
// the lines added since: the cost of an action follows the action, not
// the length of the ledger. Lines are compared byte for byte with those
// held before their entries are reused; a ledger whose held lines changed
// (rewritten, or changed by hand) is parsed and verified again from its
// first line.
type parsed struct {
	mu      sync.Mutex
	lines   [][]byte
	entries []Entry
	broken  *BrokenError // the first held line that does not fit the chain
}

// of gives the entries of lines (a copy the caller may change) and the
// first line that does not fit the chain (nil when every line does). A
// line that is not a valid entry is an error (a *MalformedError, or a
// JSON error naming the line).
func (p *parsed) of(lines [][]byte, path string) ([]Entry, *BrokenError, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := len(p.lines)
	if k > len(lines) || !equalLines(p.lines, lines[:min(k, len(lines))]) {
		k, p.broken = 0, nil
	}
	broken := p.broken
	if broken == nil {
		prev, prevSeq := Genesis, 0
		if k > 0 {
			prev, prevSeq = p.entries[k-1].Hash, p.entries[k-1].Seq
		}
		broken = verifyFrom(path, lines[k:], k, prev, prevSeq)
	}
	added, err := parse(lines[k:], path, k)
	if err != nil {
		return nil, broken, err
	}
	p.lines = append(p.lines[:k:k], lines[k:]...)
	p.entries = append(p.entries[:k:k], added...)
	p.broken = broken
	return slices.Clone(p.entries), broken, nil
}

// equalLines tells whether a and b hold the same lines, byte for byte.
func equalLines(a, b [][]byte) bool {
	return slices.EqualFunc(a, b, bytes.Equal)
}
