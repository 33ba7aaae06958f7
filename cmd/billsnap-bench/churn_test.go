package main

import (
	"context"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
)

// served is every list's records by ID, as the sandbox serves them now.
func served(t *testing.T, sb *sandbox.Sandbox) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, name := range sandbox.ListNames() {
		recs, err := sb.Served(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = map[string]string{}
		for _, r := range recs {
			out[name][r.ID] = string(r.JSON)
		}
	}
	return out
}

// A day of churn changes the share of the lists' records asked for: a
// tenth of the changes inserts, a tenth deletes (never of a list others
// hang on), the rest updates, each of which changes the record it takes;
// the same seed makes the same changes, and no churn none.
func TestChurnChangesTheShareOfRecordsAsked(t *testing.T) {
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC) // the twins' dates alike
	opts := sandbox.Config{Data: sandbox.Options{Seed: 3, Customers: 20, Planted: 1, Now: now}}
	sb, twin := sandbox.New(opts), sandbox.New(opts)
	before := served(t, sb)
	total := 0
	for _, recs := range before {
		total += len(recs)
	}
	c := newChurn(sb, 0.1, 9)
	if err := c.day(); err != nil {
		t.Fatal(err)
	}
	n := int(math.Round(0.1 * float64(total)))
	ins, del := int(math.Round(float64(n)/10)), int(math.Round(float64(n)/10))
	if want := (churnCounts{n - ins - del, ins, del}); c.done != want || ins == 0 {
		t.Fatalf("%d records churned at 0.1: %+v, want %+v", total, c.done, want)
	}
	after := served(t, sb)
	var changed, added, gone int
	for name, recs := range before {
		for id, raw := range recs {
			now, ok := after[name][id]
			switch {
			case !ok && undeletable[name]:
				t.Errorf("%s %s was deleted", name, id)
			case !ok:
				gone++
			case now != raw:
				changed++
			}
		}
		added += len(after[name]) - len(recs)
	}
	if gone != del || added != ins-del || changed == 0 || changed > c.done.updates {
		t.Errorf("%d deleted, %d records more, %d changed; churn says %+v", gone, added, changed, c.done)
	}
	whole := newChurn(sandbox.New(opts), 1, 9) // deletes of a tenth of every record
	if err := whole.day(); err != nil {
		t.Fatal(err)
	}
	for name := range undeletable {
		if recs, _ := whole.sb.Served(name); len(recs) < len(before[name]) {
			t.Errorf("%s: %d records left of %d", name, len(recs), len(before[name]))
		}
	}
	tc := newChurn(twin, 0.1, 9)
	if err := tc.day(); err != nil {
		t.Fatal(err)
	}
	if tw := served(t, twin); !maps.EqualFunc(tw, after, maps.Equal) {
		t.Error("the same seed churned a twin sandbox otherwise")
	}
	if err := newChurn(twin, 0, 9).day(); err != nil || !maps.EqualFunc(served(t, twin), after, maps.Equal) {
		t.Errorf("no churn changed the sandbox (%v)", err)
	}
}

// Every kind of record has an update that changes what is served.
func TestChurnUpdatesEveryKindOfRecord(t *testing.T) {
	sb := sandbox.New(sandbox.Config{Data: sandbox.Options{Seed: 3, Customers: 10, Planted: 1}})
	c := newChurn(sb, 0, 9)
	for _, name := range sandbox.ListNames() {
		recs, _ := sb.Served(name)
		for _, r := range recs[:min(len(recs), 8)] {
			if err := sb.Change(name, r.ID, c.update); err != nil {
				t.Fatal(err)
			}
			now, _ := sb.Served(name)
			if i := slices.IndexFunc(now, func(x sandbox.Record) bool { return x.ID == r.ID }); string(now[i].JSON) == string(r.JSON) {
				t.Errorf("%s %s: the update changed nothing served", name, r.ID)
			}
		}
	}
}

// The days sampled spread over the run: the first, the last and the
// middle among them; every day of a short run.
func TestSampleDaysSpreadOverTheRun(t *testing.T) {
	for _, c := range []struct {
		days int
		want []int
	}{
		{8, []int{1, 3, 5, 6, 8}},
		{120, []int{1, 31, 61, 90, 120}},
		{365, []int{1, 92, 183, 274, 365}},
		{3, []int{1, 2, 3}},
		{1, []int{1}},
	} {
		if got := slices.Sorted(maps.Keys(sampleDays(c.days, asofSamples))); !slices.Equal(got, c.want) {
			t.Errorf("%d days: sampled %v, want %v", c.days, got, c.want)
		}
	}
}

// A fingerprint does not depend on the rows' order, and tells a changed
// byte, a key given to another row and a row held twice.
func TestFingerprintTellsTablesApart(t *testing.T) {
	rows := func(r ...keyRaw) tablePrint { return fingerprint(r) }
	a := rows(keyRaw{"1", `{"A":1}`}, keyRaw{"2", `{"A":2}`})
	if rows(keyRaw{"2", `{"A":2}`}, keyRaw{"1", `{"A":1}`}) != a {
		t.Error("the order of the rows changed the print")
	}
	for _, other := range []tablePrint{
		rows(keyRaw{"1", `{"A":1}`}, keyRaw{"2", `{"A":3}`}),
		rows(keyRaw{"2", `{"A":1}`}, keyRaw{"1", `{"A":2}`}),
		rows(keyRaw{"1", `{"A":1}`}, keyRaw{"2", `{"A":2}`}, keyRaw{"2", `{"A":2}`}),
		rows(keyRaw{"1", `{"A":1}2`}, keyRaw{`{"A":2}`, ""}), // the same bytes without the lengths
	} {
		if other == a {
			t.Errorf("%+v prints as %+v", other, a)
		}
	}
}

// What the store holds after an export prints as what the sandbox served
// for it, every table (the latest_ tables; the history's as-of relations
// are read the same way), after a day of churn; and the churn is seen.
func TestTheStorePrintsWhatTheSandboxServed(t *testing.T) {
	ctx := context.Background()
	sb := sandbox.New(sandbox.Config{APIKey: benchKey, Data: sandbox.Options{Seed: yearSeed, Customers: 3, Planted: 1}})
	srv, err := sandbox.Start("127.0.0.1:0", sb)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := benchConfig(srv.URL, t.TempDir(), 8, 8)
	day := time.Date(2027, 1, 1, 2, 30, 0, 0, time.UTC)
	if _, err := runDay(ctx, cfg, func() time.Time { return day }); err != nil {
		t.Fatal(err)
	}
	first, err := servedPrints(sb)
	if err != nil {
		t.Fatal(err)
	}
	if err := newChurn(sb, 0.2, 1).day(); err != nil {
		t.Fatal(err)
	}
	sum, err := runDay(ctx, cfg, func() time.Time { return day.AddDate(0, 0, 1) })
	if err != nil {
		t.Fatal(err)
	}
	want, err := servedPrints(sb)
	if err != nil {
		t.Fatal(err)
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := storePrints(ctx, db, func(t string) string { return t + " WHERE snapshot_id = (SELECT id FROM latest_snapshot)" })
	if err != nil {
		t.Fatal(err)
	}
	if diff := printsDiffer(want, got); len(diff) > 0 || len(want) != 15 {
		t.Errorf("the latest snapshot differs from what was served in %v (%d tables)", diff, len(want))
	}
	if len(printsDiffer(first, got)) == 0 {
		t.Error("the churn changed no table")
	}
	pq, err := snapshotParquet(cfg, sum.ID)
	if s, _ := storeSizes(cfg.Out); err != nil || pq <= 0 || pq >= s.all {
		t.Errorf("one snapshot's Parquet: %d bytes (%v) of a store of %d", pq, err, s.all)
	}
}

// --churn is a share: within [0, 1].
func TestYearChurnIsAShare(t *testing.T) {
	if y, err := parseYear([]string{"--year", "--churn", "0.01"}); err != nil || y.churn != 0.01 {
		t.Errorf("--churn 0.01: %+v, %v", y, err)
	}
	for _, bad := range []string{"-0.1", "1.5"} {
		if _, err := parseYear([]string{"--year", "--churn", bad}); err == nil {
			t.Errorf("--churn %s was taken", bad)
		}
	}
}
