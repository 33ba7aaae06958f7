package extract

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"time"
)

// Limits bound a walk by more than what the service claims: a list whose
// first page claims more records than MaxRecords is refused there, and a
// walk may take SlackPercent more pages and records than its first page
// announced before it is stopped.
type Limits struct {
	MaxRecords   int // records a collection may claim (TotalCount); 0: no ceiling
	SlackPercent int // pages and records past the first page's claims, in percent of them
	// Until is when the export's deadline passes (zero: none), Deadline
	// the duration it was set from, for the error: a walk takes no page
	// after it, and stops with a DeadlineError.
	Until    time.Time
	Deadline time.Duration
}

// DeadlineError stops a walk that ran past the export's deadline.
type DeadlineError struct{ Deadline time.Duration }

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("the export ran past its deadline (export.deadline: %s)", e.Deadline)
}

// pastDeadline is the DeadlineError of a walk whose clock reads now, nil
// while the deadline has not passed.
func (l Limits) pastDeadline(now time.Time) error {
	if l.Until.IsZero() || !now.After(l.Until) {
		return nil
	}
	return &DeadlineError{Deadline: l.Deadline}
}

// bounds are one walk's ceilings, set from its first page.
type bounds struct {
	pages, records int
}

// boundsOf are the ceilings of a walk whose first page claims total
// records in announced pages and carries first records: every page the
// claims need, the fewer of what Pages says and what TotalCount needs in
// pages of the first page's size, and every record TotalCount counts,
// each with slack percent more, and ten pages (or one page of records)
// for a list that grows while it is walked.
func boundsOf(total, announced, first, slack int) bounds {
	pages := announced
	if first > 0 {
		if need := (total + first - 1) / first; need < pages || pages <= 0 {
			pages = need
		}
	}
	return bounds{
		pages:   pages + pages*slack/100 + 10,
		records: total + total*slack/100 + max(first, 100),
	}
}

// seenFilter is a Bloom filter of the IDs a walk has taken, so that a page
// whose records the walk has mostly taken before is caught at that page,
// in a byte an ID (at most 16 MiB a list), where an exact set would cost
// 20 bytes an ID (idSet). A member may be reported for an ID not added
// (about 2% of them at the size it is made for), so a page is taken for a
// repeat only when most of its records, and at least two, are members
// (repeatsPage); a single repeat is found by the sink's tally at the
// walk's end, as before.
type seenFilter struct {
	seed maphash.Seed
	bits []uint64
	size uint64 // bits
}

// filterHashes is the number of bits an ID sets: the fewest false members
// at 8 bits an ID.
const filterHashes = 5

// newSeenFilter makes a filter for about n IDs.
func newSeenFilter(n int) *seenFilter {
	size := min(max(uint64(max(n, 0))*8, 1<<12), 1<<27)
	return &seenFilter{seed: maphash.MakeSeed(), bits: make([]uint64, (size+63)/64), size: size}
}

// add adds id and reports whether it may have been added before.
func (f *seenFilter) add(id string) bool {
	h := maphash.String(f.seed, id)
	h1, h2 := h, bits.RotateLeft64(h, 32)|1
	member := true
	for i := range uint64(filterHashes) {
		b, _ := bits.Mul64(h1+i*h2, f.size) // in [0, size)
		w, m := b/64, uint64(1)<<(b%64)
		if f.bits[w]&m == 0 {
			member = false
			f.bits[w] |= m
		}
	}
	return member
}

// repeats counts the records of a page whose IDs f may have had, adding
// them all.
func (f *seenFilter) repeats(records []Record) int {
	n := 0
	for _, r := range records {
		if f.add(r.ID) {
			n++
		}
	}
	return n
}

// repeatsPage tells whether a page of size records, hits of them members
// of the filter, repeats the walk: most of them, and at least two.
func repeatsPage(hits, size int) bool { return hits >= 2 && 2*hits > size }
