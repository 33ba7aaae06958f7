package extract

import "hash/maphash"

// idSet is the set of IDs a walk has received, kept as 64-bit hashes
// under a seed drawn for each walk: 8 bytes a slot, where the GUID itself
// takes 16, and the set is the one part of a walk's memory that grows with
// the list. Two distinct IDs hash alike with probability about n²/2⁶⁵ over
// a walk of n IDs (10⁻⁸ at a million); the second is then taken for a
// duplicate, which is drift: the list is walked again under another seed,
// and on the last walk allowed the snapshot is recorded incomplete. A
// record is never dropped silently.
type idSet struct {
	seed maphash.Seed
	m    map[uint64]struct{}
}

func newIDSet() idSet {
	return idSet{seed: maphash.MakeSeed(), m: map[uint64]struct{}{}}
}

// add adds g and reports whether it was not in the set.
func (s idSet) add(g GUID) bool {
	h := maphash.Bytes(s.seed, g[:])
	if _, ok := s.m[h]; ok {
		return false
	}
	s.m[h] = struct{}{}
	return true
}

// len is the number of IDs in the set.
func (s idSet) len() int { return len(s.m) }
