//go:build race

package main

import "github.com/billsnap/billsnap/cmd/internal/lakeprogram"

// testLake is the lake the tests' runs publish to: a race build links no
// lake (drivers_test.go), so it is billsnap's own, the lake's program.
func testLake() lakeLink { return lakeprogram.Program{} }

// setLakeCredentials does nothing: a race build runs no test that
// publishes to object storage.
func setLakeCredentials(string) {}
