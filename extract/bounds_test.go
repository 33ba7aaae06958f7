package extract

import (
	"fmt"
	"testing"
)

// The filter of a walk's IDs takes a few fresh IDs for members (about 2%
// at the size it is made for), never a page of fresh records for a
// repeat, and every page served again for one.
func TestTheSeenFilterCatchesRepeatedPagesOnly(t *testing.T) {
	const ids, page = 100_000, 100
	f := newSeenFilter(ids)
	members, pages := 0, make([][]Record, 0, ids/page)
	for p := range ids / page {
		recs := make([]Record, page)
		for i := range recs {
			recs[i].ID = fmt.Sprintf("%08x-0000-4000-8000-%012x", p, i)
		}
		hits := f.repeats(recs)
		members += hits
		if repeatsPage(hits, page) {
			t.Fatalf("page %d of fresh IDs taken for a repeat (%d members)", p, hits)
		}
		pages = append(pages, recs)
	}
	if members > ids*3/100 {
		t.Errorf("%d of %d fresh IDs taken for members, want at most 3%%", members, ids)
	}
	for p, recs := range pages {
		if hits := f.repeats(recs); hits != page || !repeatsPage(hits, page) {
			t.Fatalf("page %d served again: %d of %d members", p, hits, page)
		}
	}
}
