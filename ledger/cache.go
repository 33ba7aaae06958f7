package ledger

import (
	"bytes"
	"slices"
	"sync"
)

// parsed holds the ledger's lines as last read and their entries, so that
// a read or a write parses only the lines added since: the cost of an
// action follows the action, not the length of the ledger. Lines are
// compared byte for byte with those held before their entries are reused,
// so a ledger rewritten (chained, or changed by hand) is parsed again from
// the first line that differs.
type parsed struct {
	mu      sync.Mutex
	lines   [][]byte
	entries []Entry
	chained bool // every line held carries its chain fields
}

// of gives the entries of lines (a copy the caller may change) and
// whether every line is chained.
func (p *parsed) of(lines [][]byte, path string) ([]Entry, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := 0
	for k < len(p.lines) && k < len(lines) && bytes.Equal(p.lines[k], lines[k]) {
		k++
	}
	if k < len(p.lines) {
		p.lines, p.entries, p.chained = p.lines[:k], p.entries[:k], chained(lines[:k])
	}
	if k == 0 {
		p.chained = true
	}
	added, err := parse(lines[k:], path, k)
	if err != nil {
		return nil, false, err
	}
	p.lines = append(p.lines[:k:k], lines[k:]...)
	p.entries = append(p.entries[:k:k], added...)
	p.chained = p.chained && chained(lines[k:])
	return slices.Clone(p.entries), p.chained, nil
}
