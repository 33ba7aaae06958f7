package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
)

// yearFlags are the flags of billsnap-bench --year.
type yearFlags struct {
	days, keep, customers int
	churn                 float64
	out                   string
}

func parseYear(args []string) (yearFlags, error) {
	var y yearFlags
	fs := flag.NewFlagSet("billsnap-bench --year", flag.ContinueOnError)
	fs.Bool("year", true, "simulate daily exports and reconciles with a clock that moves a day each time")
	fs.IntVar(&y.days, "days", 365, "days simulated")
	fs.IntVar(&y.keep, "keep", 30, "retention.keep")
	fs.IntVar(&y.customers, "customers", 6, "customers of the sandbox exported")
	fs.Float64Var(&y.churn, "churn", 0, "share of the sandbox's records changed between one day's export and the next (updates, inserts, deletes)")
	fs.StringVar(&y.out, "out", "", "where the store goes (default: a temporary directory, removed)")
	if err := fs.Parse(args); err != nil {
		return y, err
	}
	if y.days < 1 || y.keep < 0 || y.churn < 0 || y.churn > 1 {
		return y, fmt.Errorf("--days must be at least 1, --keep at least 0 and --churn within [0, 1]")
	}
	return y, nil
}

// year simulates a store's days (simulateYear) and prints them; the last
// line is year_bytes_ratio=B (the largest store over the smallest, from
// day keep on), year_time_ratio=T (the median seconds of the last ten
// days over those of the ten days from keep+1), footprint_ratio=F (the
// store's bytes after the last day over its latest snapshot's Parquet)
// and asof_exact=N/M (of M sampled days, those whose history as of the
// day equals what the sandbox served that day).
func year(ctx context.Context, args []string) error {
	y, err := parseYear(args)
	if err != nil {
		return err
	}
	fmt.Printf("%5s %12s %12s %12s %9s\n", "day", "store B", "state B", "records B", "seconds")
	res, err := simulateYear(ctx, y, func(d yearDay) {
		if d.day == y.keep || d.day == y.keep+1 || d.day%50 == 0 || d.day == y.days {
			fmt.Printf("%5d %12d %12d %12d %9.3f\n", d.day, d.all, d.state, d.records, d.took.Seconds())
		}
	})
	if err != nil {
		return err
	}
	c := res.churned
	fmt.Printf("churn: %d updates, %d inserts, %d deletes over %d days\n", c.updates, c.inserts, c.deletes, y.days-1)
	fmt.Printf("footprint: store %d B, snapshot %s %d B of Parquet\n", res.store, res.latest, res.parquet)
	for _, miss := range res.asofMisses {
		fmt.Println("as of", miss)
	}
	fmt.Printf("year_bytes_ratio=%.3f year_time_ratio=%.2f footprint_ratio=%.2f asof_exact=%d/%d\n",
		res.bytesRatio, res.timeRatio, float64(res.store)/float64(res.parquet), res.asofExact, len(res.samples))
	return nil
}

// yearDay is one simulated day from day keep on: the store's sizes after
// it and its seconds.
type yearDay struct {
	sizes
	day  int
	took time.Duration
}

// yearResult is what simulateYear measured: from day keep on, and after
// the last day.
type yearResult struct {
	bytesRatio float64 // the largest store over the smallest
	timeRatio  float64 // the last ten days' median seconds over the first ten's
	churned    churnCounts
	store      int64  // the store's bytes after the last day
	latest     string // the latest complete snapshot
	parquet    int64  // its Parquet's bytes, every table
	samples    []yearSample
	asofExact  int      // the samples whose every table the history gives back as served
	asofMisses []string // what differed, a line a sample
}

// yearSample is a day whose export the as-of check reads back from the
// store's history: the snapshot's start and what the sandbox served,
// table by table.
type yearSample struct {
	day    int
	at     time.Time
	served map[string]tablePrint
}

// timeWindow is how many days each end of the time ratio takes the median
// of: one day's seconds vary by half on a shared machine.
const timeWindow = 10

// asofSamples is how many days the as-of check samples, at most the days
// simulated.
const asofSamples = 5

// yearSeed seeds the sandbox's data and its churn.
const yearSeed = 7

// simulateYear simulates a store's days: each an export of a small sandbox
// and a reconcile of it, with retention.keep, the store's clock a day
// later each time, and between one day and the next the sandbox churned
// (churn.day). From day keep on, when retention starts to prune, it calls
// each with the store's bytes and the day's seconds. It fingerprints what
// the sandbox served on the days sampleDays picks; after the last day it
// measures the store against its latest snapshot's Parquet and reads the
// history back as of each sampled day (asofExact).
func simulateYear(ctx context.Context, y yearFlags, each func(yearDay)) (yearResult, error) {
	dir, cleanup, err := benchDir(y.out)
	if err != nil {
		return yearResult{}, err
	}
	defer cleanup()
	sb := sandbox.New(sandbox.Config{APIKey: benchKey, Data: sandbox.Options{Seed: yearSeed, Customers: y.customers, Planted: 1}})
	srv, err := sandbox.Start("127.0.0.1:0", sb)
	if err != nil {
		return yearResult{}, err
	}
	defer srv.Close()
	cfg := benchConfig(srv.URL, dir, 8, config.Default().Prefetch)
	cfg.Retention.Keep = y.keep
	r := &yearRun{y: y, cfg: cfg, sb: sb, churn: newChurn(sb, y.churn, yearSeed), sampled: sampleDays(y.days, asofSamples), each: each}
	if err := r.days(ctx); err != nil {
		return yearResult{}, err
	}
	return r.finish(ctx)
}

// yearRun is a simulation under way.
type yearRun struct {
	y       yearFlags
	cfg     config.Config
	sb      *sandbox.Sandbox
	churn   *churn
	sampled map[int]bool
	each    func(yearDay)

	res    yearResult
	took   []time.Duration // from day keep+1
	lo, hi int64           // the store's smallest and largest bytes from day keep
}

// days runs every day in turn.
func (r *yearRun) days(ctx context.Context) error {
	r.lo = -1
	day := time.Date(2027, 1, 1, 2, 30, 0, 0, time.UTC)
	for d := 1; d <= r.y.days; d, day = d+1, day.AddDate(0, 0, 1) {
		if err := r.day(ctx, d, day); err != nil {
			return fmt.Errorf("day %d: %w", d, err)
		}
	}
	return nil
}

// day exports and reconciles with the store's clock at at, samples what
// the sandbox served if d is sampled, measures the store from day keep
// on, and churns the sandbox unless d is the last day.
func (r *yearRun) day(ctx context.Context, d int, at time.Time) error {
	start := time.Now()
	sum, err := runDay(ctx, r.cfg, func() time.Time { return at })
	if err != nil {
		return err
	}
	dt := time.Since(start)
	if sum.Status == snapshot.StatusComplete {
		r.res.latest = sum.ID
	}
	if r.sampled[d] {
		served, err := servedPrints(r.sb)
		if err != nil {
			return err
		}
		r.res.samples = append(r.res.samples, yearSample{day: d, at: sum.Started, served: served})
	}
	if d >= r.y.keep {
		if err := r.measure(d, dt); err != nil {
			return err
		}
	}
	if d < r.y.days {
		return r.churn.day()
	}
	return nil
}

// measure follows the store's bytes and the day's seconds from day keep.
func (r *yearRun) measure(d int, dt time.Duration) error {
	s, err := storeSizes(r.cfg.Out)
	if err != nil {
		return err
	}
	if r.lo < 0 || s.all < r.lo {
		r.lo = s.all
	}
	r.hi = max(r.hi, s.all)
	if d > r.y.keep {
		r.took = append(r.took, dt)
	}
	r.each(yearDay{sizes: s, day: d, took: dt})
	return nil
}

// finish measures the store after the last day and checks the as-of
// samples.
func (r *yearRun) finish(ctx context.Context) (yearResult, error) {
	n := min(timeWindow, len(r.took))
	if n == 0 {
		return yearResult{}, fmt.Errorf("no day after day %d (keep) to time: simulate more days", r.y.keep)
	}
	res := r.res
	res.timeRatio = median(r.took[len(r.took)-n:]).Seconds() / median(r.took[:n]).Seconds()
	res.bytesRatio = float64(r.hi) / float64(r.lo)
	res.churned = r.churn.done
	s, err := storeSizes(r.cfg.Out)
	if err != nil {
		return yearResult{}, err
	}
	res.store = s.all
	if res.parquet, err = snapshotParquet(r.cfg, res.latest); err != nil {
		return yearResult{}, err
	}
	res.asofExact, res.asofMisses, err = asofExact(ctx, r.cfg, res.samples)
	return res, err
}

// sampleDays spreads n of days 1..days evenly: the first, the last, and
// between them (the middle one among them when n is odd); every day when
// there are no more than n.
func sampleDays(days, n int) map[int]bool {
	out := map[int]bool{}
	if days <= n {
		for d := 1; d <= days; d++ {
			out[d] = true
		}
		return out
	}
	for i := range n {
		out[1+int(math.Round(float64(i*(days-1))/float64(n-1)))] = true
	}
	return out
}

// snapshotParquet adds the bytes of snapshot id's Parquet, every table's
// partition (DIR/parquet/TABLE/snapshot_id=ID).
func snapshotParquet(cfg config.Config, id string) (int64, error) {
	if id == "" {
		return 0, fmt.Errorf("no complete snapshot")
	}
	var n int64
	for _, t := range catalog.Tables() {
		part := filepath.Join(layout.Dir(cfg.Out).Under(cfg.Parquet.Dir), t.Name, "snapshot_id="+id)
		files, err := os.ReadDir(part)
		if err != nil {
			return 0, err
		}
		for _, f := range files {
			info, err := f.Info()
			if err != nil {
				return 0, err
			}
			n += info.Size()
		}
	}
	return n, nil
}

// asofExact reads each sample back from the store's read model, every
// table as of the sample's snapshot (TABLE_asof at its start), and counts
// the samples whose every table prints as the sandbox served it; for each
// other it says which tables differed.
func asofExact(ctx context.Context, cfg config.Config, samples []yearSample) (int, []string, error) {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return 0, nil, err
	}
	defer db.Close()
	exact, misses := 0, []string(nil)
	for _, s := range samples {
		ts := s.at.UTC().Format("2006-01-02 15:04:05.999999Z07:00")
		got, err := storePrints(ctx, db, func(t string) string { return fmt.Sprintf("%s_asof(TIMESTAMPTZ '%s')", t, ts) })
		if err != nil {
			return 0, nil, fmt.Errorf("as of day %d (%s): %w", s.day, ts, err)
		}
		if diff := printsDiffer(s.served, got); len(diff) > 0 {
			misses = append(misses, fmt.Sprintf("day %d (%s): %s", s.day, ts, strings.Join(diff, ", ")))
			continue
		}
		exact++
	}
	return exact, misses, nil
}

// runDay is one day: an export of the sandbox and a reconcile of it, with
// the store's clock at now. It returns the export's snapshot.
func runDay(ctx context.Context, cfg config.Config, now func() time.Time) (*snapshot.Summary, error) {
	log := slog.New(slog.DiscardHandler)
	store, err := snapshot.Open(ctx, cfg.Options, log, now)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	svc := job.Service{Secret: extract.NewSecret(benchKey), Log: log, Clock: fakeclock.New(now()), Lake: lakeprogram.Program{}.Publish}
	sum, _, err := job.Export(ctx, cfg, svc, store)
	if err != nil {
		return nil, err
	}
	opts, err := job.ReconcileOptions(cfg, "", "")
	if err != nil {
		return nil, err
	}
	opts.Now = now
	_, err = job.Reconcile(ctx, store, opts, log, nil)
	return sum, err
}

// sizes are a store's bytes: in all, and in its state and its records.
type sizes struct{ all, state, records int64 }

// storeSizes adds the bytes of every file under dir once, however many
// names (hard links) it has.
func storeSizes(dir string) (sizes, error) {
	var s sizes
	seen := map[uint64]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			if seen[st.Ino] {
				return nil
			}
			seen[st.Ino] = true
		}
		s.all += info.Size()
		rel, _ := filepath.Rel(dir, p)
		switch {
		case filepath.Base(p) == "state.duckdb":
			s.state += info.Size()
		case strings.HasPrefix(rel, ".records-gen"+string(filepath.Separator)):
			s.records += info.Size()
		}
		return nil
	})
	return s, err
}
