// Package cli is billsnap's command line, the program that main runs
// (Main): each command's flags, grouped, their parsing, and what is
// printed. The store's SQL and paths are the packages' below it; the one
// statement here checks that a table named by billsnap changes --table
// has a history (changes.go). Run is the same program with the tests'
// seams (Options): their environment, clock, lake and configuration.
//
// It links no lake. Its lake (Lake, set on a run's environment by newEnv
// and on job.Service by the export) is the lake's program, so an export
// with parquet.url runs billsnap-lake publish, and lake ddl asks
// billsnap-lake metadata for the Iceberg tables. The tests that link the
// lake (e2e/e2etest) give Run their own and publish in-process.
package cli
