//go:build heavy

package main

import (
	"context"
	"testing"
)

// A store that runs daily under retention stays bounded: from the day
// retention starts to prune, the store's bytes (every file once, whatever
// its names) stay within ten percent. (Its time is the benchmark's to
// measure: billsnap-bench --year.)
func TestAStoreRunDailyUnderRetentionStaysBounded(t *testing.T) {
	days, keep := 45, 10
	var sizes []int64
	res, err := simulateYear(context.Background(), yearFlags{days: days, keep: keep, customers: 4}, func(d yearDay) {
		sizes = append(sizes, d.all)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != days-keep+1 || res.bytesRatio > 1.10 {
		t.Errorf("from day %d on the store's bytes ranged %.3f× (days measured %d): %v", keep, res.bytesRatio, len(sizes), sizes)
	}
}
