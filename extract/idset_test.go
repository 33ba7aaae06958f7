package extract

import (
	"crypto/rand"
	"testing"
)

// Every new ID is added once, every repeat is refused, and len counts the
// distinct ones.
func TestIDSet(t *testing.T) {
	ids := make([]GUID, 200_000)
	for i := range ids {
		rand.Read(ids[i][:])
	}
	s := newIDSet()
	for i, g := range ids {
		if !s.add(g) {
			t.Fatalf("ID %d of %d taken for a repeat", i, len(ids))
		}
	}
	for i := 0; i < len(ids); i += 997 {
		if s.add(ids[i]) {
			t.Fatalf("ID %d added twice", i)
		}
	}
	if s.len() != len(ids) {
		t.Errorf("len %d, want %d", s.len(), len(ids))
	}
}
