package journal

import (
	"fmt"
	"time"
)

// deliveriesKept is how long the record of notifications is kept at the
// least: longer than a failed delivery is retried, or a killed run told
// of (a day).
const deliveriesKept = 7 * 24 * time.Hour

// Retain is the retention of a store's journal of runs (in runs) and its
// record of notifications (in notifications), given oldest, when the
// oldest complete snapshot the store keeps started: it prunes the runs
// that started before oldest, but for the newest keep (Prune), and the
// deliveries made before oldest, or before deliveriesKept ago when that
// is earlier (Deliveries.Prune).
func Retain(runs, notifications string, oldest time.Time, keep int, now time.Time) error {
	if err := Prune(runs, oldest, keep, now); err != nil {
		return fmt.Errorf("retention of the journal: %w", err)
	}
	before := now.Add(-deliveriesKept)
	if oldest.Before(before) {
		before = oldest
	}
	if err := DeliveriesIn(notifications).Prune(before); err != nil {
		return fmt.Errorf("retention of the notifications record: %w", err)
	}
	return nil
}
