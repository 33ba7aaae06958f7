package journal

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Retain keeps the deliveries of notifications for deliveriesKept at the
// least, and those since the oldest snapshot kept when that is earlier.
func TestRetainKeepsDeliveriesAWeekAtTheLeast(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		oldest time.Time
		kept   []string
	}{
		{now.Add(-30 * 24 * time.Hour), []string{"S10", "S1"}},
		{now.Add(-time.Hour), []string{"S1"}},
	} {
		dir := t.TempDir()
		runs, notifications := filepath.Join(dir, "runs"), filepath.Join(dir, "notifications.jsonl")
		d := DeliveriesIn(notifications)
		for _, x := range []Delivery{
			{Time: now.Add(-10 * 24 * time.Hour), Target: "ops", Event: "failure", Key: "S10", Result: DeliverySent},
			{Time: now.Add(-24 * time.Hour), Target: "ops", Event: "failure", Key: "S1", Result: DeliverySent},
		} {
			if err := d.Add(x); err != nil {
				t.Fatal(err)
			}
		}
		if err := Retain(runs, notifications, c.oldest, 1, now); err != nil {
			t.Fatal(err)
		}
		ds, err := d.List()
		var kept []string
		for _, x := range ds {
			if x.Result == DeliverySent {
				kept = append(kept, x.Key)
			}
		}
		if err != nil || !slices.Equal(kept, c.kept) {
			t.Errorf("oldest snapshot %s: kept %v (%v), want %v", c.oldest, kept, err, c.kept)
		}
	}
}
