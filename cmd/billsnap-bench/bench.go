package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// recordsPerCustomer is about how many records (invoice lines and
// pricings counted) the sandbox makes per customer.
const recordsPerCustomer = 42

// measurement is one child's wall time, CPU time and peak RSS.
type measurement struct {
	name    string
	wall    time.Duration
	cpu     time.Duration
	rssMB   float64
	records int64
	out     string
}

func (m measurement) rate() float64 { return float64(m.records) / m.wall.Seconds() }

func bench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("billsnap-bench", flag.ContinueOnError)
	records := fs.Int("records", 200_000, "records the sandbox holds (about)")
	latency := fs.Duration("latency", 20*time.Millisecond, "latency of every page")
	concurrency := fs.Int("concurrency", 8, "requests in flight (floor and export)")
	skipSerial := fs.Bool("skip-serial", false, "do not run the serial walker (it is slow at high latency)")
	out := fs.String("out", "", "where the exports go (default: a temporary directory, removed)")
	withLake := fs.Bool("lake", false, "also export with parquet.url on an S3-compatible store served in a child (gofakes3), and compare")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, cleanup, err := benchDir(*out)
	if err != nil {
		return err
	}
	defer cleanup()
	customers := max(1, *records/recordsPerCustomer)
	url, total, stop, err := startSandbox(ctx, customers, *latency)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(os.Stderr, "sandbox: %d customers, %d records, latency %s, at %s\n", customers, total, *latency, url)
	c := strconv.Itoa(*concurrency)
	runs := []struct{ name, phase string }{{"fetch floor", "floor"}, {"serial walker", "serial"}, {"billsnap export", "export"}}
	if *withLake {
		stopLake, err := startLake(ctx)
		if err != nil {
			return err
		}
		defer stopLake()
		runs = append(runs, struct{ name, phase string }{"export to S3", "export-lake"})
	}
	var ms []measurement
	for _, r := range runs {
		if r.phase == "serial" && *skipSerial {
			continue
		}
		m, err := measure(ctx, r.name, r.phase, url, dir+"/"+r.phase, c)
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		ms = append(ms, m)
	}
	anchor, err := measureAnchor(ctx, url, dir+"/duckdb", c)
	if err != nil {
		return fmt.Errorf("duckdb anchor: %w", err)
	}
	// The export's figures are reported even when the reconcile fails.
	rec, err := measure(ctx, "reconcile", "reconcile", url, dir+"/export", c)
	rec.name = "reconcile"
	report(ms, rec, anchor, *latency, *concurrency)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	return nil
}

// measure runs one phase in a child process and reads its resource usage.
func measure(ctx context.Context, name, phase, url, dir, concurrency string) (measurement, error) {
	cmd := exec.CommandContext(ctx, os.Args[0], "child", phase, url, dir, concurrency)
	cmd.Stderr = os.Stderr
	start := time.Now()
	outBytes, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		return measurement{}, err
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	m := measurement{name: name, wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
		rssMB: float64(ru.Maxrss) / 1024, out: strings.TrimSpace(string(outBytes))}
	m.records, _ = strconv.ParseInt(m.out, 10, 64)
	return m, nil
}

// measureAnchor runs the DuckDB anchor (anchor.go) in a child process:
// its records are the lists' records it loaded, its cpu the CPU the
// anchor measured for the tables and their Parquet alone (the child's
// fetch of the pages left out).
func measureAnchor(ctx context.Context, url, dir, concurrency string) (measurement, error) {
	m, err := measure(ctx, "duckdb anchor", "duckdb", url, dir, concurrency)
	if err != nil {
		return m, err
	}
	var ns int64
	if _, err := fmt.Sscan(m.out, &m.records, &ns); err != nil {
		return m, fmt.Errorf("the child printed %q: %w", m.out, err)
	}
	m.cpu = time.Duration(ns)
	return m, nil
}

// startSandbox starts the sandbox in a child process and returns its URL
// and record count.
func startSandbox(ctx context.Context, customers int, latency time.Duration) (string, int64, func(), error) {
	cmd := exec.CommandContext(ctx, os.Args[0], "child", "sandbox", strconv.Itoa(customers), latency.String())
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	stop := func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }
	var url string
	var total int64
	if _, err := fmt.Fscan(bufio.NewReader(stdout), &url, &total); err != nil {
		stop()
		return "", 0, nil, fmt.Errorf("sandbox did not start: %w", err)
	}
	return url, total, stop, nil
}

func report(ms []measurement, rec, anchor measurement, latency time.Duration, concurrency int) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "client\twall s\tCPU s\tpeak RSS MB\trecords\trecords/s\t\n")
	byName := map[string]measurement{}
	for _, m := range append(ms, rec) {
		byName[m.name] = m
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.0f\t%d\t%.0f\t\n", m.name, m.wall.Seconds(), m.cpu.Seconds(), m.rssMB, m.records, m.rate())
	}
	tw.Flush()
	fmt.Printf("(latency %s per page, concurrency %d)\n", latency, concurrency)
	export, floor, serial := byName["billsnap export"], byName["fetch floor"], byName["serial walker"]
	exportPer, anchorPer := perRecord(export.cpu, floor.records), perRecord(anchor.cpu, anchor.records)
	fmt.Printf("duckdb anchor (read_json, table, snappy Parquet; one thread): %d list records, %.2f s CPU, %.1f µs each; billsnap export: %d list records, %.2f s CPU, %.1f µs each\n",
		anchor.records, anchor.cpu.Seconds(), anchorPer*1e6, floor.records, export.cpu.Seconds(), exportPer*1e6)
	speedup := 0.0
	if serial.wall > 0 {
		speedup = serial.wall.Seconds() / export.wall.Seconds()
	}
	fmt.Printf("speedup_vs_serial=%.2f ratio_to_floor=%.2f rss_mb=%.0f reconcile_ratio=%.2f cpu_ratio_to_duckdb=%.2f",
		speedup, export.wall.Seconds()/floor.wall.Seconds(), export.rssMB, rec.wall.Seconds()/export.wall.Seconds(), exportPer/anchorPer)
	if s3, ok := byName["export to S3"]; ok {
		fmt.Printf(" s3_ratio=%.2f", s3.wall.Seconds()/export.wall.Seconds())
	}
	fmt.Println()
}

// perRecord is seconds of CPU per record.
func perRecord(cpu time.Duration, records int64) float64 {
	return cpu.Seconds() / float64(max(records, 1))
}
