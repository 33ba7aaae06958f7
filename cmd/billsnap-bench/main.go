// Command billsnap-bench measures billsnap export against the sandbox, side
// by side with the floor (GET every page, bodies thrown away) and a serial
// walker (one page at a time). Each client runs in a child process of its
// own, so that its CPU time and peak RSS are its own; the sandbox runs in
// another. With --history it measures instead what everyday operations
// cost on a store with a year of history against a fresh one (history.go),
// and with --year it simulates a year of daily runs under retention
// (year.go).
// See docs/benchmarks.md.
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
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "child":
		err = child(ctx, os.Args[2:])
	case slices.Contains(os.Args[1:], "--history") || slices.Contains(os.Args[1:], "-history"):
		err = history(ctx, os.Args[1:])
	case slices.Contains(os.Args[1:], "--year") || slices.Contains(os.Args[1:], "-year"):
		err = year(ctx, os.Args[1:])
	default:
		err = bench(ctx, os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "billsnap-bench:", err)
		os.Exit(1)
	}
}
