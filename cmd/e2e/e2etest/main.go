package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// asMainEnv set to 1 makes the test binary run billsnap instead of its
// tests (asMain). The tests that drive billsnap as a child process run
// the test binary itself (binary), so the fast tier links no second
// binary of DuckDB's size; every child inherits it, and a child that must
// run a test (the reader of concurrency_test.go) sets it empty.
const asMainEnv = "BILLSNAP_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		asMain()
	}
	os.Setenv(asMainEnv, "1")
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
// with its DuckDB's queries on one thread, as cli's in-process runs
// (oneThread): no test of a child is about the threads. The binaries
// built with build tags (binaryWithTags: the crash matrix, the soaks) are
// billsnap's own main, on the default.
func asMain() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	env := newEnv(os.Stdout, os.Stderr, lookupEnv)
	env.tune = oneThread
	code := env.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
