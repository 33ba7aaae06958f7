// Package schedule runs billsnap's schedules and measures its runs: the
// scheduler on robfig/cron (skipping a run while the last one of its
// schedule still runs, recovering panics, logging through slog), the next
// fire times for status ([NextFires]), and the Prometheus metrics
// ([Metrics]) computed from the journal and the store, for /metrics and
// the node_exporter textfile. What a fire runs, and how it is recorded, is
// package job's.
//
// The metrics read the store's read model through a [ReadModel]
// (readmodel.go), which job wires from snapshot/readmodel's queries
// (job/metrics.go): the schedule stands without DuckDB.
package schedule
