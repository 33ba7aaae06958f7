// Package schedule runs billsnap's jobs unattended and keeps their record:
// the scheduler on robfig/cron (skipping a run while the last one of its
// schedule still runs, recovering panics, logging through slog), the runs
// table in the snapshot database, the node_exporter textfile and the
// Prometheus metrics built from it, and the next fire times for status.
//
// Do is the one way a job runs, scheduled or one-shot: it opens the output
// directory (waiting for its lock), records the run, recovers a panic as a
// failed run, records the outcome and refreshes the metrics file.
package schedule
