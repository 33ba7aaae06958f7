package extract

import "hash/maphash"

// idSet is the set of IDs the last walk allowed has received, so that it
// hands each record over once (the first time it is listed) and an
// incomplete collection holds no record twice. Only that walk keeps one:
// the others hand every record over, and the sink's tally at the end
// finds a repeat. It keeps 64-bit hashes under a seed drawn for each
// walk (8 bytes a slot, ~20 bytes an ID in all). Two distinct IDs hash
// alike with probability about n²/2⁶⁵ over a walk of n IDs (10⁻⁸ at a
// million); the second is then taken for a repeat and left out, which
// makes the collection incomplete: it is never dropped silently.
type idSet struct {
	seed maphash.Seed
	m    map[uint64]struct{}
}

func newIDSet() *idSet {
	return &idSet{seed: maphash.MakeSeed(), m: map[uint64]struct{}{}}
}

// add adds id and reports whether it was not in the set. IDs are compared
// as sent, as the sink's tally compares them.
func (s idSet) add(id string) bool {
	h := maphash.String(s.seed, id)
	if _, ok := s.m[h]; ok {
		return false
	}
	s.m[h] = struct{}{}
	return true
}
