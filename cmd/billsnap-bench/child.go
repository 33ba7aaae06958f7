package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
)

const benchKey = "billsnap-bench-key"

// child runs one phase and prints its record count on stdout (the
// DuckDB anchor's: its records and the nanoseconds of CPU it measured).
func child(ctx context.Context, args []string) error {
	if len(args) < 3 {
		return fmt.Errorf("child: want PHASE ARGS")
	}
	if args[0] == "s3" {
		return serveLake(ctx)
	}
	if args[0] == "sandbox" {
		customers, _ := strconv.Atoi(args[1])
		latency, _ := time.ParseDuration(args[2])
		return serveSandbox(ctx, customers, latency)
	}
	url, dir := args[1], args[2]
	concurrency, _ := strconv.Atoi(args[3])
	var n int64
	var err error
	switch args[0] {
	case "floor":
		n, err = floor(ctx, url, concurrency)
	case "serial":
		n, err = serial(ctx, benchConfig(url, dir, 1, 0))
	case "export":
		n, err = export(ctx, benchConfig(url, dir, concurrency, config.Default().Prefetch))
	case "export-lake":
		cfg := benchConfig(url, dir, concurrency, config.Default().Prefetch)
		cfg.Parquet.URL = os.Getenv(lakeEnv)
		n, err = export(ctx, cfg)
	case "duckdb":
		var res anchorResult
		res, err = duckdbAnchor(ctx, url, dir, concurrency)
		fmt.Println(res.total, res.cpu.Nanoseconds())
		return err
	case "reconcile":
		var found int
		found, err = reconcileLatest(ctx, benchConfig(url, dir, 1, 0))
		n = int64(found)
	default:
		err = fmt.Errorf("child: unknown phase %q", args[0])
	}
	fmt.Println(n)
	return err
}

// serveSandbox prints the URL and the record count, then serves.
func serveSandbox(ctx context.Context, customers int, latency time.Duration) error {
	f, err := sandbox.ParseFaults("latency=" + latency.String())
	if err != nil {
		return err
	}
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{APIKey: benchKey, Faults: f,
		Data: sandbox.Options{Seed: 1, Customers: customers, Planted: 2}}))
	if err != nil {
		return err
	}
	defer srv.Close()
	var total int
	for _, t := range srv.AnswerKey().Tables {
		total += t.Count
	}
	fmt.Println(srv.URL, total)
	<-ctx.Done()
	return nil
}

// benchConfig is billsnap's default configuration for url and dir.
func benchConfig(url, dir string, concurrency, prefetch int) config.Config {
	c := config.Default()
	c.BaseURL, c.FrontURL, c.Out, c.Concurrency, c.Prefetch, c.Progress = url, url, dir, concurrency, prefetch, "none"
	return c
}

func walker(cfg config.Config) (*extract.Walker, error) {
	client, err := extract.NewClient(extract.Options{BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Secret: extract.NewSecret(benchKey),
		Concurrency: cfg.Concurrency, Timeout: cfg.Timeout, Retry: cfg.Retry})
	if err != nil {
		return nil, err
	}
	return &extract.Walker{Client: client, BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Prefetch: cfg.Prefetch, MaxRewalks: cfg.MaxRewalks}, nil
}

// export is billsnap export with its defaults, as the command runs it
// (job.Export). Its log lines at WARN and above go to stderr: a routine
// export logs none.
func export(ctx context.Context, cfg config.Config) (int64, error) {
	log := benchLog()
	store, err := snapshot.Open(ctx, cfg.Options, log, time.Now)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	sum, _, err := job.Export(ctx, cfg, benchService(log), store)
	if err != nil {
		return 0, err
	}
	return rows(sum), nil
}

// benchLog is the log of the bench's billsnap work: its lines at WARN and
// above go to stderr.
func benchLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// benchService is the service an export of the bench walks, logging to
// log. The bench publishes to object storage as billsnap does: through
// billsnap-lake, so that the child's RSS is billsnap's own, and --lake's
// time includes the lake program's.
func benchService(log *slog.Logger) job.Service {
	return job.Service{Secret: extract.NewSecret(benchKey), Log: log, Clock: extract.RealClock{}, Lake: lakeprogram.Program{}.Publish}
}

// serial walks the collections one after another, one page at a time
// (concurrency 1, no prefetch), into the same store: what a
// straightforward NextPage loop does.
func serial(ctx context.Context, cfg config.Config) (int64, error) {
	w, err := walker(cfg)
	if err != nil {
		return 0, err
	}
	store, err := snapshot.Open(ctx, cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	run, err := store.Begin(ctx, snapshot.Meta{BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL})
	if err != nil {
		return 0, err
	}
	colls, _ := catalog.Collections(cfg.Collections)
	for _, c := range colls {
		res, err := w.Walk(ctx, extract.Collection(c), run.Sink(c.Table))
		run.Walked(res)
		if err != nil {
			run.Fail(err.Error())
			return 0, err
		}
	}
	sum, err := run.Publish(ctx)
	if err != nil {
		return 0, err
	}
	return rows(sum), nil
}

func rows(sum *snapshot.Summary) int64 {
	var n int64
	for _, t := range sum.Tables {
		n += t.DuckDBRows
	}
	return n
}
