// Package schedule runs billsnap's schedules and measures its runs: the
// scheduler on robfig/cron (skipping a run while the last one of its
// schedule still runs, recovering panics, logging through slog), the next
// fire times for status ([NextFires]), and the Prometheus metrics
// ([Metrics]) computed from the journal and the store, for /metrics and
// the node_exporter textfile, with the runs the journal could not take
// ([Metrics.Unrecorded]); and readiness ([Readiness], /readyz): whether a
// schedule's last run failed or its last success is stale, whether a run
// could not be recorded, whether the store can take a run ([StoreProbe]).
// What a fire runs, and how it is recorded, is package job's.
//
// The metrics read the store's read model through a [ReadModel]
// (readmodel.go), which job wires from snapshot/readmodel's queries
// (job/metrics.go): the schedule stands without DuckDB.
package schedule
