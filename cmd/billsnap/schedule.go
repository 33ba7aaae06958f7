package main

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
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/usage"
)

// runSchedule runs the jobs of the config's schedules until SIGINT or
// SIGTERM; then no run starts, the run under way is cancelled (nothing
// half-published), and it exits 0.
func runSchedule(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "schedule", "--config FILE [--listen ADDR] [store flags] [service flags]")
	cf := addServiceFlags(fs)
	listen := fs.String("listen", "", "serve /healthz and /metrics (Prometheus) on this address, such as 127.0.0.1:9187")
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
	secret, err := cf.secret(env)
	if err != nil {
		return err
	}
	metrics := schedule.NewMetrics()
	job.PrimeMetrics(ctx, cfg, metrics, env.log)
	if *listen != "" {
		stop, err := serveMetrics(env, *listen, metrics)
		if err != nil {
			return err
		}
		defer stop()
	}
	s, err := schedule.New(ctx, cfg.Schedules, func(ctx context.Context, sc schedule.Schedule) {
		env.scheduled(ctx, cfg, secret, sc, metrics)
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
// the journal and the reports keep it.
func (env *cliEnv) scheduled(ctx context.Context, cfg config.Config, secret *extract.Secret, sc schedule.Schedule, metrics *schedule.Metrics) {
	start := time.Now()
	opts, err := job.ReconcileOptions(cfg, "", "")
	if err != nil {
		env.log.Error("schedule", "schedule", sc.Name, "error", err)
		return
	}
	opts.Period = periodOf(sc.Period, start)
	j := job.Spec{Name: sc.Job, Schedule: sc.Name, Period: opts.Period.String()}
	var fn job.Func
	switch sc.Job {
	case "reconcile":
		fn = reportJob(env, cfg, opts, cfg.Reports.Formats, io.Discard)
	case "run":
		fn, j.ExportLock = runJob(env, cfg, secret, opts, cfg.Reports.Formats, io.Discard), true
	default: // export
		fn, j.ExportLock = exportJob(env, cfg, secret, io.Discard), true
	}
	out, err := env.job(ctx, cfg, j, metrics, fn)
	env.runEnded(ctx, j, out, err, time.Since(start))
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
		env.log.Error("run failed", append(attrs, "error", termsafe.FirstLine(env.redact(err.Error()))+hint(err))...)
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

// serveMetrics serves /healthz and /metrics until stop is called.
func serveMetrics(env *cliEnv, addr string, m *schedule.Metrics) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			env.log.Error("metrics server", "error", err)
		}
	}()
	env.log.Info("serving /healthz and /metrics", "addr", ln.Addr().String())
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
