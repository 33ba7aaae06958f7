// Command billsnap snapshots a subscription billing service into DuckDB and
// Parquet, reconciles it and reports what it found. See README.md.
//
// main only wires the signals to the command line, package cli
// (cmd/internal/cli), which is the whole program. This package's tests
// hold the command line's surface: the help, the usage errors, the exit
// codes and the transcripts; the scenarios are e2e's.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/billsnap/billsnap/cmd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
