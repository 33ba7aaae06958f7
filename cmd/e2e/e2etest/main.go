package e2etest

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/billsnap/billsnap/cmd/internal/cli"
)

// AsMainEnv set to 1 makes the test binary run billsnap instead of its
// tests (asMain). The tests that drive billsnap as a child process run
// the test binary itself (Binary), so the fast tier links no second
// binary of DuckDB's size; every child inherits it, and a child that must
// run a test (the reader of e2e/store's concurrency_test.go) sets it
// empty.
const AsMainEnv = "BILLSNAP_TEST_AS_MAIN"

// Main is the TestMain of every package of tests that uses these helpers:
// in a child the tests started (AsMainEnv) it runs billsnap; else it puts
// the lake's test credentials in the environment, runs the tests and
// removes the binaries and the exports they made.
func Main(m *testing.M) {
	if os.Getenv(AsMainEnv) == "1" {
		asMain()
	}
	os.Setenv(AsMainEnv, "1")
	aws, err := os.MkdirTemp("", "billsnap-test-aws-")
	if err != nil {
		panic(err)
	}
	setLakeCredentials(aws)
	code := m.Run()
	removeBinaries()
	removeExports()
	os.RemoveAll(aws)
	os.Exit(code)
}

// asMain is billsnap's main as a child of the tests: the same program,
// with its DuckDB's queries on one thread, as CLI's in-process runs
// (OneThread): no test of a child is about the threads. The binaries
// built with build tags (BinaryWithTags: the crash matrix, the soaks) are
// billsnap's own main, on the default.
func asMain() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{Getenv: os.Getenv, Tune: OneThread})
	stop()
	os.Exit(code)
}
