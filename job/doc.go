// Package job runs billsnap's jobs — export, reconcile, report and run —
// for the command line and the scheduler alike: it opens the store, keeps
// every run on record in the journal, recovers a panic as a failed run,
// refreshes the metrics, and maps what a job returned to its exit code, in
// one place. The command line only parses flags and prints; the scheduler
// only fires.
package job
