package worklist

import (
	"time"

	"github.com/billsnap/billsnap/ledger"
)

// Buckets are the aging buckets, youngest first: ages in whole days.
var Buckets = []string{"0-1", "2-7", "8-30", ">30"}

// AgeDays is how many whole days passed from first (when a finding was
// first seen) to asOf (its reconciliation's moment); 0 when first is not
// before asOf or is unknown (zero).
func AgeDays(first, asOf time.Time) int {
	if first.IsZero() || !first.Before(asOf) {
		return 0
	}
	return int(asOf.Sub(first) / (24 * time.Hour))
}

// Bucket is the aging bucket of an age in days.
func Bucket(days int) string {
	switch {
	case days <= 1:
		return Buckets[0]
	case days <= 7:
		return Buckets[1]
	case days <= 30:
		return Buckets[2]
	}
	return Buckets[3]
}

// Overdue tells whether a finding due on day due (YYYY-MM-DD, UTC) is
// late at asOf: the whole of its due day has passed. No due date, or one
// that does not read, is never overdue.
func Overdue(due string, asOf time.Time) bool {
	return ledger.Assignment{Due: due}.LateAt(asOf)
}
