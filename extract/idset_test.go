package extract

import (
	"crypto/rand"
	"strings"
	"testing"
)

// Every new ID is added once and every repeat is refused; IDs are compared
// as sent.
func TestIDSet(t *testing.T) {
	ids := make([]string, 200_000)
	for i := range ids {
		ids[i] = rand.Text()
	}
	s := newIDSet()
	for i, id := range ids {
		if !s.add(id) {
			t.Fatalf("ID %d of %d taken for a repeat", i, len(ids))
		}
	}
	for i := 0; i < len(ids); i += 997 {
		if s.add(ids[i]) {
			t.Fatalf("ID %d added twice", i)
		}
		if !s.add(strings.ToLower(ids[i])) {
			t.Fatalf("ID %d in lower case taken for a repeat", i)
		}
	}
}
