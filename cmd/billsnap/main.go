// Command billsnap snapshots a subscription billing service into DuckDB and
// Parquet, reconciles it and reports what it found. See README.md.
//
// The package is the command line: each command's flags, grouped, their
// parsing, and what is printed. main only wires the signals to run. The
// store's SQL and paths are the packages' below it; the one statement here
// checks that a table named by billsnap changes --table has a history
// (changes.go).
//
// It links no lake. Its lake (lakelink.go, set on a run's environment by
// newEnv and on job.Service by the export) is the lake's program, so an
// export with parquet.url runs billsnap-lake publish, and lake ddl asks
// billsnap-lake metadata for the Iceberg tables. Its tests link the lake
// (drivers_test.go) and publish in-process.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
