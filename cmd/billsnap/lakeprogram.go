package main

import "github.com/billsnap/billsnap/lake/program"

// The lake (object storage, Iceberg) is billsnap-lake's, a program of its
// own, so that billsnap links none of the clouds' SDKs, Arrow or
// iceberg-go (package lake/program). A program that links the lake itself
// (the tests: drivers_test.go) publishes in-process instead.
func init() { program.Register() }
