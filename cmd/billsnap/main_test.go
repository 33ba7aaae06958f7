package main

import (
	"os"
	"testing"
)

// asMainEnv set to 1 makes the test binary run billsnap's main instead of
// its tests. The tests that drive billsnap as a child process run the test
// binary itself (binary), so the fast tier links no second binary of
// DuckDB's size; every child inherits it, and a child that must run a test
// (the reader of concurrency_test.go) sets it empty.
const asMainEnv = "BILLSNAP_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main()
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
