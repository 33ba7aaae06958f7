//go:build !race

package main

// The tests publish in-process: the test binary links the lake
// (lake/drivers registers its publisher and catalogs before this
// package's init, which then leaves them be), where billsnap itself runs
// billsnap-lake (lakeprogram.go). A race build links none of it: CI's
// race step leaves out the tests that publish to object storage
// (lake_test.go), so that it does not compile the clouds' SDKs, Arrow and
// iceberg-go a second time, with -race.
import _ "github.com/billsnap/billsnap/lake/drivers"
