// Command billsnap-bench measures billsnap export against the sandbox, side
// by side with the floor (GET every page, bodies thrown away) and a serial
// walker (one page at a time). Each client runs in a child process of its
// own, so that its CPU time and peak RSS are its own; the sandbox runs in
// another. DuckDB's own JSON to table to Parquet over the same pages is
// the anchor (cpu_ratio_to_duckdb).
//
// With --history it measures instead what everyday operations cost on a
// store with a year of history against a fresh one, each timed as the
// commands run it (job.InStore; history.go). With --year it simulates a
// year of daily runs under retention, the sandbox churned between days
// (--churn), and reads the history back as of sampled days (year.go).
//
// Like billsnap, it sets job.Service's Lake to the lake's program
// (cmd/internal/lakeprogram). See docs/benchmarks.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "billsnap-bench:", err)
		os.Exit(1)
	}
}

// run runs the mode args ask for, writing the CPU profile --cpuprofile
// asks for: of this process with --history or --year, of the local
// export's child otherwise.
func run(ctx context.Context, args []string) error {
	profile, args := cpuProfileArg(args)
	inProcess := isMode(args, "history") || isMode(args, "year")
	switch {
	case len(args) > 0 && args[0] == "child":
		profile = ""
		if len(args) > 1 && args[1] == "export" {
			profile = os.Getenv(profileEnv)
		}
	case !inProcess && profile != "":
		os.Setenv(profileEnv, profile) // for the export's child
		profile = ""
	}
	stop, err := startProfile(profile)
	if err != nil {
		return err
	}
	defer stop()
	switch {
	case len(args) > 0 && args[0] == "child":
		return child(ctx, args[1:])
	case isMode(args, "year"):
		return year(ctx, args)
	case isMode(args, "history"):
		return history(ctx, args)
	}
	return bench(ctx, args)
}

// isMode tells whether args ask for the mode --name.
func isMode(args []string, name string) bool {
	return slices.Contains(args, "--"+name) || slices.Contains(args, "-"+name)
}
