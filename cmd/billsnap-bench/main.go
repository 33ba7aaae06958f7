// Command billsnap-bench measures billsnap export against the sandbox, side
// by side with the floor (GET every page, bodies thrown away) and a serial
// walker (one page at a time). Each client runs in a child process of its
// own, so that its CPU time and peak RSS are its own; the sandbox runs in
// another. See docs/benchmarks.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if len(os.Args) > 1 && os.Args[1] == "child" {
		err = child(ctx, os.Args[2:])
	} else {
		err = bench(ctx, os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "billsnap-bench:", err)
		os.Exit(1)
	}
}
