package schedule

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
)

// sample is one metric value.
type sample struct {
	desc   *prometheus.Desc
	kind   prometheus.ValueType
	value  float64
	labels []string
}

var (
	descLastRun     = prometheus.NewDesc("billsnap_last_run_timestamp_seconds", "When the job's last run started.", []string{"job"}, nil)
	descDuration    = prometheus.NewDesc("billsnap_last_run_duration_seconds", "How long the job's last run took.", []string{"job"}, nil)
	descExitCode    = prometheus.NewDesc("billsnap_last_run_exit_code", "Exit code of the job's last run: 0 ok, 1 failed, 3 material, 130 interrupted.", []string{"job"}, nil)
	descLastSuccess = prometheus.NewDesc("billsnap_last_success_timestamp_seconds", "When the job last ended without error (exit 0 or 3).", []string{"job"}, nil)
	descRuns        = prometheus.NewDesc("billsnap_runs_total", "Runs of the job by status.", []string{"job", "status"}, nil)
	descRetries     = prometheus.NewDesc("billsnap_retries_total", "Requests to the service the job's runs on record tried again (5xx, 429, timeouts, resets, bodies cut short).", []string{"job"}, nil)
	descThrottles   = prometheus.NewDesc("billsnap_throttles_total", "Answers 429 (Too Many Requests) the job's runs on record waited out.", []string{"job"}, nil)
	descRecords     = prometheus.NewDesc("billsnap_last_run_records", "Records in the snapshot of the job's last run.", []string{"job"}, nil)
	descFindings    = prometheus.NewDesc("billsnap_last_run_findings", "Open findings (neither resolved nor waived) of the job's last run, by severity.", []string{"job", "severity"}, nil)
	descGenerated   = prometheus.NewDesc("billsnap_metrics_generated_timestamp_seconds", "When these metrics were computed.", nil, nil)
	descFieldValues = prometheus.NewDesc("billsnap_last_run_field_values", "Values of a field in the snapshot of the job's last run that arrived in another JSON type than their column's: coerced without loss, or untyped (NULL in the column, kept in _raw). Only fields with such values.",
		[]string{"job", "table", "field", "outcome"}, nil)
	descFields        = prometheus.NewDesc("billsnap_last_run_fields", "Fields of the snapshot of the job's last run that the service sent without a typed column (new), or typed fields that never arrived (absent).", []string{"job", "state"}, nil)
	descNotifications = prometheus.NewDesc("billsnap_notifications_total", "Notifications on record, by target, event and result (sent, or failed after every try).", []string{"target", "event", "result"}, nil)
	descNotJudged     = prometheus.NewDesc("billsnap_last_run_not_judged_records", "Records a rule of the job's last run did not judge because a value arrived untyped.", []string{"job", "rule"}, nil)
)

// Metrics is the last computed set of metrics; it serves /metrics and
// writes the textfile. It keeps the runs that could not be journaled
// (Unrecorded) and counts them with the journal's. It is safe for
// concurrent use.
type Metrics struct {
	mu         sync.Mutex
	samples    []sample
	reg        *prometheus.Registry
	unrecorded journal.Backlog
}

// Unrecorded is the backlog of runs the journal could not take: the
// scheduler's memory of them between runs, which the next run that can
// write flushes into the journal.
func (m *Metrics) Unrecorded() *journal.Backlog { return &m.unrecorded }

// NewMetrics makes an empty set, registered in its own registry.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.reg.MustRegister(m)
	return m
}

// Describe sends nothing: the metrics are unchecked, computed from the runs.
func (m *Metrics) Describe(chan<- *prometheus.Desc) {}

// Collect sends the last computed samples.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.samples {
		ch <- prometheus.MustNewConstMetric(s.desc, s.kind, s.value, s.labels...)
	}
}

// Refresh computes the metrics from the runs of the journal of the output
// directory out (with those it could not take, Unrecorded) and its record
// of notifications, and the snapshots and findings of the read model rm
// (nil: the runs' metrics only).
func (m *Metrics) Refresh(ctx context.Context, out layout.Dir, rm ReadModel, now time.Time) error {
	dir := out.Runs()
	runs, err := journal.List(dir, now)
	if err != nil {
		return err
	}
	runs = withUnrecorded(runs, m.unrecorded.Runs())
	pruned, err := journal.ReadPruned(dir)
	if err != nil {
		return err
	}
	samples, err := compute(ctx, runs, pruned, rm)
	if err != nil {
		return err
	}
	deliveries, err := journal.DeliveriesIn(out.Notifications()).List()
	if err != nil {
		return err
	}
	samples = append(samples, notificationSamples(deliveries)...)
	samples = append(samples, sample{descGenerated, prometheus.GaugeValue, seconds(now), nil})
	m.mu.Lock()
	m.samples = samples
	m.mu.Unlock()
	return nil
}

// Handler serves /metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// WriteTextfile writes the node_exporter textfile (atomically: a
// temporary file renamed over the old one).
func (m *Metrics) WriteTextfile(path string) error { return prometheus.WriteToTextfile(path, m.reg) }

func seconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// compute counts the runs by job and status (those retention pruned
// included), and gives every job's last run, its last success and, with
// rm, its snapshot's records, findings and fields.
func compute(ctx context.Context, runs []journal.Run, pruned journal.Pruned, rm ReadModel) ([]sample, error) {
	var out []sample
	for _, k := range runCounts(runs, pruned) {
		out = append(out, sample{descRuns, prometheus.CounterValue, float64(k.n), []string{k.job, k.status}})
	}
	out = append(out, requestSamples(runs)...)
	for _, r := range lastRuns(runs) {
		more, err := runSamples(ctx, rm, r)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// withUnrecorded are the journal's runs and the runs it could not take,
// newest first; a run kept in memory replaces its file in the journal (a
// run whose end could not be written).
func withUnrecorded(runs, unrecorded []journal.Run) []journal.Run {
	if len(unrecorded) == 0 {
		return runs
	}
	kept := map[string]bool{}
	for _, r := range unrecorded {
		kept[r.ID] = true
	}
	out := slices.DeleteFunc(slices.Clone(runs), func(r journal.Run) bool { return kept[r.ID] })
	out = append(out, unrecorded...)
	slices.SortFunc(out, func(a, b journal.Run) int { return cmp.Compare(b.ID, a.ID) })
	return out
}

type runCount struct {
	job, status string
	n           int
}

// runCounts counts the runs by job and status, in that order.
func runCounts(runs []journal.Run, pruned journal.Pruned) []runCount {
	counts := map[[2]string]int{}
	for _, r := range runs {
		counts[[2]string{r.Job, r.Status}]++
	}
	for job, byStatus := range pruned.Runs {
		for status, n := range byStatus {
			counts[[2]string{job, status}] += n
		}
	}
	var out []runCount
	for k, n := range counts {
		out = append(out, runCount{k[0], k[1], n})
	}
	slices.SortFunc(out, func(a, b runCount) int { return cmp.Or(cmp.Compare(a.job, b.job), cmp.Compare(a.status, b.status)) })
	return out
}

// notificationSamples count the deliveries by target, event and result.
func notificationSamples(ds []journal.Delivery) []sample {
	counts := map[[3]string]int{}
	for _, d := range ds {
		for _, c := range d.Pruned {
			counts[[3]string{c.Target, c.Event, c.Result}] += c.Count
		}
		if d.Result != journal.DeliveryNoted && d.Result != journal.DeliveryPruned {
			counts[[3]string{d.Target, d.Event, d.Result}]++
		}
	}
	var out []sample
	for _, k := range slices.SortedFunc(maps.Keys(counts), func(a, b [3]string) int { return slices.Compare(a[:], b[:]) }) {
		out = append(out, sample{descNotifications, prometheus.CounterValue, float64(counts[k]), k[:]})
	}
	return out
}

// requestSamples count the retries and throttles of every job's runs.
func requestSamples(runs []journal.Run) []sample {
	sums := map[string]journal.Requests{}
	for _, r := range runs {
		s := sums[r.Job]
		s.Retries += r.Retries
		s.Throttles += r.Throttles
		sums[r.Job] = s
	}
	var out []sample
	for _, job := range slices.Sorted(maps.Keys(sums)) {
		s := sums[job]
		out = append(out, sample{descRetries, prometheus.CounterValue, float64(s.Retries), []string{job}},
			sample{descThrottles, prometheus.CounterValue, float64(s.Throttles), []string{job}})
	}
	return out
}

// lastRun is a job's newest run and its last success.
type lastRun struct {
	journal.Run
	lastSuccess time.Time
}

// lastRuns are each job's newest run, by job; runs are newest first.
func lastRuns(runs []journal.Run) []lastRun {
	byJob := map[string]*lastRun{}
	var jobs []string
	for _, r := range runs {
		l := byJob[r.Job]
		if l == nil {
			l = &lastRun{Run: r}
			byJob[r.Job] = l
			jobs = append(jobs, r.Job)
		}
		if (r.Status == journal.OK || r.Status == journal.Material) && r.Finished.After(l.lastSuccess) {
			l.lastSuccess = r.Finished
		}
	}
	slices.Sort(jobs)
	out := make([]lastRun, len(jobs))
	for i, j := range jobs {
		out[i] = *byJob[j]
	}
	return out
}

// runSamples are the metrics of one job's last run.
func runSamples(ctx context.Context, rm ReadModel, r lastRun) ([]sample, error) {
	job := []string{r.Job}
	out := []sample{
		{descLastRun, prometheus.GaugeValue, seconds(r.Started), job},
		{descExitCode, prometheus.GaugeValue, float64(r.ExitCode), job},
	}
	if r.Status != journal.Running {
		out = append(out, sample{descDuration, prometheus.GaugeValue, r.Seconds(), job})
	}
	if !r.lastSuccess.IsZero() {
		out = append(out, sample{descLastSuccess, prometheus.GaugeValue, seconds(r.lastSuccess), job})
	}
	if r.Snapshot == "" || rm == nil {
		return out, nil
	}
	records, err := recordsOf(ctx, rm, r.Snapshot)
	if err != nil {
		return nil, err
	}
	if records.Valid {
		out = append(out, sample{descRecords, prometheus.GaugeValue, records.Float64, job})
	}
	fields, err := fieldSamples(ctx, rm, r)
	if err != nil {
		return nil, err
	}
	out = append(out, fields...)
	if r.Job == "export" {
		return out, nil
	}
	if ok, err := exists(ctx, rm, "findings"); !ok || err != nil {
		return out, err
	}
	bySeverity, err := rm.OpenBySeverity(ctx, r.Snapshot, r.Period)
	if err != nil {
		return nil, err
	}
	for _, sev := range []string{"critical", "high", "medium", "low"} {
		out = append(out, sample{descFindings, prometheus.GaugeValue, float64(bySeverity[sev]), []string{r.Job, sev}})
	}
	unjudged, err := notJudgedSamples(ctx, rm, r)
	return append(out, unjudged...), err
}

// fieldSamples are the field metrics of the snapshot of a job's last run.
func fieldSamples(ctx context.Context, rm ReadModel, r lastRun) ([]sample, error) {
	if ok, err := manifested(ctx, rm, r.Snapshot); !ok || err != nil {
		return nil, err
	}
	outcomes, err := rm.FieldOutcomes(ctx, r.Snapshot)
	if err != nil {
		return nil, err
	}
	var out []sample
	for _, o := range outcomes {
		if o.Table != "" {
			out = append(out, sample{descFieldValues, prometheus.GaugeValue, float64(o.N), []string{r.Job, o.Table, o.Field, o.Outcome}})
		} else {
			out = append(out, sample{descFields, prometheus.GaugeValue, float64(o.N), []string{r.Job, o.Outcome}})
		}
	}
	return out, nil
}

// notJudgedSamples are the records each rule of a job's last run did not
// judge.
func notJudgedSamples(ctx context.Context, rm ReadModel, r lastRun) ([]sample, error) {
	if ok, err := exists(ctx, rm, "unjudged"); !ok || err != nil {
		return nil, err
	}
	counts, err := rm.NotJudged(ctx, r.Snapshot, r.Period)
	if err != nil {
		return nil, err
	}
	var out []sample
	for _, c := range counts {
		out = append(out, sample{descNotJudged, prometheus.GaugeValue, float64(c.N), []string{r.Job, c.Rule}})
	}
	return out, nil
}

// recordsOf is how many records snapshot id took from the service's
// lists, as its manifest in the read model rm says; not valid when rm has
// no manifest of it.
func recordsOf(ctx context.Context, rm ReadModel, id string) (sql.NullFloat64, error) {
	var records sql.NullFloat64
	ok, err := manifested(ctx, rm, id)
	if !ok || err != nil {
		return records, err
	}
	records, err = rm.Records(ctx, id)
	if err != nil {
		return records, fmt.Errorf("metrics: the records of snapshot %s: %w", id, err)
	}
	return records, nil
}

// manifested tells whether the read model rm has the manifest of
// snapshot id (a snapshot still running has none yet).
func manifested(ctx context.Context, rm ReadModel, id string) (bool, error) {
	ok, err := rm.Manifested(ctx, id)
	if err != nil {
		return false, fmt.Errorf("metrics: the manifest of snapshot %s: %w", id, err)
	}
	return ok, nil
}

// exists tells whether the read model rm has the table or view table.
func exists(ctx context.Context, rm ReadModel, table string) (bool, error) {
	ok, err := rm.Has(ctx, table)
	if err != nil {
		return false, fmt.Errorf("metrics: whether the read model has %s: %w", table, err)
	}
	return ok, nil
}
