package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
)

// runSchedule runs the jobs of the config's schedules until SIGINT or
// SIGTERM; then no run starts, the run under way is cancelled (nothing
// half-published), and it exits 0.
func runSchedule(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "schedule", "--config FILE [--listen ADDR] [store flags] [service flags]")
	cf := addServiceFlags(fs)
	listen := fs.String("listen", "", "serve /healthz, /readyz and /metrics (Prometheus) on this address, such as 127.0.0.1:9187")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	if len(cfg.Schedules) == 0 {
		return usage.Errorf("the configuration has no schedules (config key schedules)")
	}
	if _, err := cf.secret(env); err != nil { // a key that cannot be read at start is a usage error
		return err
	}
	metrics := schedule.NewMetrics()
	job.PrimeMetrics(ctx, cfg, metrics, env.log)
	ready := newReadiness(cfg, metrics, time.Now())
	if *listen != "" {
		stop, err := serveMetrics(env, *listen, metrics, ready)
		if err != nil {
			return err
		}
		defer stop()
	}
	key := func() (*extract.Secret, error) { return cf.secret(env) } // read again at every run: a rotation needs no restart
	s, err := schedule.New(ctx, cfg.Schedules, func(ctx context.Context, sc schedule.Schedule) {
		env.scheduled(ctx, cfg, key, sc, metrics, ready)
	}, env.log)
	if err != nil {
		return usage.Wrap(err)
	}
	next, _ := schedule.NextFires(cfg.Schedules, time.Now())
	for _, n := range next {
		env.log.Info("scheduled", "schedule", n.Name, "spec", n.Spec, "job", n.Job, "next", n.At.UTC().Format(time.RFC3339))
	}
	go watchStale(ctx, job.Notifier(cfg, env.log, env.redact))
	s.Run(ctx)
	env.log.Info("stopped")
	return nil
}

// scheduled runs one fire of a schedule and logs how it ended in one
// line (runEnded); the summary a one-shot command prints is not printed:
// the journal and the reports keep it. A job that talks to the service
// reads the API key again first (key): a key that cannot be read fails
// the run, on record. ready, when not nil, is told how the run ended.
func (env *cliEnv) scheduled(ctx context.Context, cfg config.Config, key func() (*extract.Secret, error), sc schedule.Schedule, metrics *schedule.Metrics, ready *schedule.Readiness) {
	start := time.Now()
	opts, err := job.ReconcileOptions(cfg, "", "")
	if err != nil {
		env.log.Error("schedule", "schedule", sc.Name, "error", err)
		ready.Ended(sc.Name, start, time.Now(), job.ExitCode(ctx, err), env.redact(err.Error()))
		return
	}
	opts.Period = periodOf(sc.Period, start)
	j := job.Spec{Name: sc.Job, Schedule: sc.Name, Period: opts.Period.String()}
	var fn job.Func
	switch sc.Job {
	case "reconcile":
		fn = reportJob(env, cfg, opts, cfg.Reports.Formats, io.Discard)
	case "run":
		fn, j.ExportLock = withKey(key, func(secret *extract.Secret) job.Func {
			return runJob(env, cfg, secret, opts, cfg.Reports.Formats, io.Discard)
		}), true
	default: // export
		fn, j.ExportLock = withKey(key, func(secret *extract.Secret) job.Func { return exportJob(env, cfg, secret, io.Discard) }), true
	}
	out, err := env.job(ctx, cfg, j, metrics, fn)
	end := time.Now()
	ready.Ended(sc.Name, start, end, job.ExitCode(ctx, job.Material(out, err)), env.redact(errText(err))) // before the log line that tells of it
	env.runEnded(ctx, j, out, err, end.Sub(start))
}

// withKey is the job fn makes with the API key key reads when the run
// starts; a key that cannot be read fails the run.
func withKey(key func() (*extract.Secret, error), fn func(*extract.Secret) job.Func) job.Func {
	return func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
		secret, err := key()
		if err != nil {
			return job.Outcome{}, fmt.Errorf("reading the API key: %w", err)
		}
		return fn(secret)(ctx, store)
	}
}

// errText is err's text; "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// newReadiness is the readiness of cfg's schedules from now, primed with
// the runs of its journal so far, its store probed as it stands.
func newReadiness(cfg config.Config, metrics *schedule.Metrics, now time.Time) *schedule.Readiness {
	out := layout.Dir(cfg.Out)
	runs, _ := journal.List(out.Runs(), now) // a journal that cannot be read primes nothing; the store's probe says why
	return schedule.NewReadiness(cfg.Schedules, now, runs, metrics.Unrecorded(), schedule.StoreProbe{Out: out})
}

// runEnded logs one line for a scheduled run: how it ended (the message:
// run ok, run found something material, run failed, run interrupted), its
// schedule, job and period, snapshot, open findings (when it reconciled),
// why it is material, the error and how long it took.
func (env *cliEnv) runEnded(ctx context.Context, j job.Spec, out job.Outcome, err error, took time.Duration) {
	attrs := []any{"schedule", j.Schedule, "job", j.Name}
	if j.Period != "" {
		attrs = append(attrs, "period", j.Period)
	}
	attrs = append(attrs, "snapshot", dash(out.Snapshot))
	if out.Report != nil {
		attrs = append(attrs, "findings", out.Report.OpenCount())
	}
	attrs = append(attrs, "seconds", took.Round(100*time.Millisecond).Seconds())
	switch {
	case err != nil && job.ExitCode(ctx, err) == job.ExitInterrupted:
		env.log.Warn("run interrupted", append(attrs, "error", job.Interruption(ctx, err))...)
	case err != nil:
		env.log.Error("run failed", append(attrs, "error", termsafe.Brief(env.redact(err.Error()+env.hint(err))))...)
	case out.Material:
		env.log.Warn("run found something material", append(attrs, "material", out.Note)...)
	default:
		env.log.Info("run ok", attrs...)
	}
}

// periodOf resolves a schedule's period at the time it fires.
func periodOf(p string, now time.Time) *findings.Period {
	switch p {
	case "previous-month":
		return findings.MonthOf(now, -1)
	case "current-month":
		return findings.MonthOf(now, 0)
	}
	return nil
}

// serveMetrics serves /healthz (liveness: 200 while the scheduler runs),
// /readyz (readiness: 200, or 503 with the reason) and /metrics until
// stop is called.
func serveMetrics(env *cliEnv, addr string, m *schedule.Metrics, ready *schedule.Readiness) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.Handle("/readyz", ready.Handler(time.Now))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			env.log.Error("metrics server", "error", err)
		}
	}()
	env.log.Info("serving /healthz, /readyz and /metrics", "addr", ln.Addr().String())
	return func() { srv.Close() }, nil
}

// watchStale checks every minute, between the runs too, whether the store
// has gone stale (notify.stale_after).
func watchStale(ctx context.Context, n *notify.Notifier) {
	if n == nil {
		return
	}
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n.CheckStale(ctx)
		}
	}
}

// dash is s, or "-" when s is empty (a run line's snapshot).
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
