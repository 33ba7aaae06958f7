// Package job runs billsnap's jobs (export, reconcile, report and run) for
// the command line and the scheduler alike: it opens the store, keeps
// every run on record in the journal, recovers a panic as a failed run,
// refreshes the metrics, and maps what a job returned to its exit code
// ([ExitCode]), in one place. The command line only parses flags and
// prints; the scheduler only fires.
//
// [Export] drives the walk: ingest.Walk into a run of the store, then the
// run's Finish publishes the snapshot or records the failure, and the
// lake, when one is configured, is levelled by [Service]'s Lake (set by a
// main). [Reconcile] takes a reading of the store, reconciles it, and has
// the store keep what it found: data goes one way. [Report] reconciles and
// writes the report files. [Do] and [InStore] are the recorded run: the store,
// the journal, panics and metrics; a job takes the store's export lock
// only when its [Spec] says ExportLock.
//
// It holds no domain logic: the read-back of fix's writes is fix's, the
// journal's retention the journal's (journal.Retain).
package job
