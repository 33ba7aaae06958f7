// Package schedule runs billsnap's schedules and measures its runs: the
// scheduler on robfig/cron (skipping a run while the last one of its
// schedule still runs, recovering panics, logging through slog), the next
// fire times for status, and the Prometheus metrics computed from the
// journal and the store, for /metrics and the node_exporter textfile.
// What a fire runs, and how it is recorded, is package job's.
package schedule
