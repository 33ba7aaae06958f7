//go:build !race

package main

// The object storage drivers and Iceberg catalogs parquet.url opens
// (package lake). A race build links none of them: CI's race step leaves
// out the tests that publish to object storage (lake_test.go), whose
// code starts no goroutine of billsnap's own (package lake is raced with
// its own tests), so that it does not compile the clouds' SDKs, Arrow and
// iceberg-go a second time, with -race.
import _ "github.com/billsnap/billsnap/lake/drivers"
