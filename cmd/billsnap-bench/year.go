package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
)

// yearFlags are the flags of billsnap-bench --year.
type yearFlags struct {
	days, keep, customers int
	out                   string
}

func parseYear(args []string) (yearFlags, error) {
	var y yearFlags
	fs := flag.NewFlagSet("billsnap-bench --year", flag.ContinueOnError)
	fs.Bool("year", true, "simulate daily exports and reconciles with a clock that moves a day each time")
	fs.IntVar(&y.days, "days", 365, "days simulated")
	fs.IntVar(&y.keep, "keep", 30, "retention.keep")
	fs.IntVar(&y.customers, "customers", 6, "customers of the sandbox exported")
	fs.StringVar(&y.out, "out", "", "where the store goes (default: a temporary directory, removed)")
	return y, fs.Parse(args)
}

// year simulates a store's days (simulateYear) and prints them; the last
// line is year_bytes_ratio=B (the largest store over the smallest, from
// day keep on) and year_time_ratio=T (the median seconds of the last ten
// days over those of the ten days from keep+1).
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
	fmt.Printf("year_bytes_ratio=%.3f year_time_ratio=%.2f\n", res.bytesRatio, res.timeRatio)
	return nil
}

// yearDay is one simulated day from day keep on: the store's sizes after
// it and its seconds.
type yearDay struct {
	sizes
	day  int
	took time.Duration
}

// yearResult is what simulateYear measured from day keep on.
type yearResult struct {
	bytesRatio float64 // the largest store over the smallest
	timeRatio  float64 // the last ten days' median seconds over the first ten's
}

// timeWindow is how many days each end of the time ratio takes the median
// of: one day's seconds vary by half on a shared machine.
const timeWindow = 10

// simulateYear simulates a store's days: each an export of a small sandbox
// and a reconcile of it, with retention.keep, the store's clock a day
// later each time. From day keep on, when retention starts to prune, it
// calls each with the store's bytes and the day's seconds.
func simulateYear(ctx context.Context, y yearFlags, each func(yearDay)) (yearResult, error) {
	dir, cleanup, err := benchDir(y.out)
	if err != nil {
		return yearResult{}, err
	}
	defer cleanup()
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{APIKey: benchKey, Data: sandbox.Options{Seed: 7, Customers: y.customers, Planted: 1}}))
	if err != nil {
		return yearResult{}, err
	}
	defer srv.Close()
	cfg := benchConfig(srv.URL, dir, 8, config.Default().Prefetch)
	cfg.Retention.Keep = y.keep
	day := time.Date(2027, 1, 1, 2, 30, 0, 0, time.UTC)
	var took []time.Duration // from day keep+1
	lo, hi := int64(-1), int64(0)
	for d := 1; d <= y.days; d, day = d+1, day.AddDate(0, 0, 1) {
		start := time.Now()
		at := day
		if err := runDay(ctx, cfg, func() time.Time { return at }); err != nil {
			return yearResult{}, fmt.Errorf("day %d: %w", d, err)
		}
		dt := time.Since(start)
		if d < y.keep {
			continue
		}
		s, err := storeSizes(dir)
		if err != nil {
			return yearResult{}, err
		}
		if lo < 0 || s.all < lo {
			lo = s.all
		}
		hi = max(hi, s.all)
		if d > y.keep {
			took = append(took, dt)
		}
		each(yearDay{sizes: s, day: d, took: dt})
	}
	n := min(timeWindow, len(took))
	if n == 0 {
		return yearResult{}, fmt.Errorf("no day after day %d (keep) to time: simulate more days", y.keep)
	}
	ratio := median(took[len(took)-n:]).Seconds() / median(took[:n]).Seconds()
	return yearResult{bytesRatio: float64(hi) / float64(lo), timeRatio: ratio}, nil
}

// runDay is one day: an export of the sandbox and a reconcile of it, with
// the store's clock at now.
func runDay(ctx context.Context, cfg config.Config, now func() time.Time) error {
	log := slog.New(slog.DiscardHandler)
	store, err := snapshot.Open(ctx, cfg.Options, log, now)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := job.Service{Secret: extract.NewSecret(benchKey), Log: log, Clock: fakeclock.New(now()), Lake: lakeprogram.Program{}.Publish}
	if _, _, err := job.Export(ctx, cfg, svc, store); err != nil {
		return err
	}
	opts, err := job.ReconcileOptions(cfg, "", "")
	if err != nil {
		return err
	}
	opts.Now = now
	_, err = job.Reconcile(ctx, store, opts, log, nil)
	return err
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
