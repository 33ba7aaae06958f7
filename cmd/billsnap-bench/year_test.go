//go:build heavy

package main

import (
	"context"
	"slices"
	"testing"
)

// A store that runs daily under retention stays bounded: from the day
// retention starts to prune, the store's bytes (every file once, whatever
// its names) stay within ten percent. (Its time is the benchmark's to
// measure: billsnap-bench --year.)
func TestAStoreRunDailyUnderRetentionStaysBounded(t *testing.T) {
	days, keep := 30, 6 // past a second level of history's packs (history.PackFanIn 4: 16 steps)
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

// A churned year reads back every sampled day: as of each, the history
// gives every table back as the sandbox served it that day, though
// retention keeps one snapshot; and read as of the next sampled day
// instead, no day but the last matches (the check can fail).
func TestAChurnedYearReadsBackEverySampledDay(t *testing.T) {
	ctx, out := context.Background(), t.TempDir()
	res, err := simulateYear(ctx, yearFlags{days: 9, keep: 1, customers: 4, churn: 0.05, out: out}, func(yearDay) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.samples) != asofSamples || res.asofExact != len(res.samples) || len(res.asofMisses) > 0 {
		t.Errorf("as of %d sampled days, %d exact: %v", len(res.samples), res.asofExact, res.asofMisses)
	}
	if c := res.churned; c.updates == 0 || c.inserts == 0 || c.deletes == 0 || res.parquet <= 0 || res.store <= res.parquet {
		t.Errorf("churn %+v; store %d B over a snapshot's Parquet %d B", c, res.store, res.parquet)
	}
	late := slices.Clone(res.samples)
	for i := range late[:len(late)-1] {
		late[i].at = res.samples[i+1].at
	}
	if n, misses, err := asofExact(ctx, benchConfig("", out, 8, 8), late); err != nil || n != 1 || len(misses) != len(late)-1 {
		t.Errorf("read a sampled day later, %d of %d exact (%v): %v", n, len(late), err, misses)
	}
}
