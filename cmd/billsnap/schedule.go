package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/schedule"
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
		return job.Usagef("the configuration has no schedules (config key schedules)")
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
		return job.Usage(err)
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

// scheduled runs one fire of a schedule and logs how it ended.
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
		fn = reportJob(env, cfg, opts, cfg.Reports.Formats)
	case "run":
		fn, j.ExportLock = runJob(env, cfg, secret, opts, cfg.Reports.Formats), true
	default: // export
		fn, j.ExportLock = exportJob(env, cfg, secret), true
	}
	env.log.Info("run starts", "schedule", sc.Name, "job", sc.Job, "period", j.Period)
	out, err := env.job(ctx, cfg, j, metrics, fn)
	switch {
	case err != nil:
		env.log.Error("run failed", "schedule", sc.Name, "job", sc.Job, "error", env.redact(err.Error())+hint(err), "seconds", time.Since(start).Seconds())
	case out.Material:
		env.log.Warn("run found something material", "schedule", sc.Name, "job", sc.Job, "why", out.Note, "seconds", time.Since(start).Seconds())
	default:
		env.log.Info("run ok", "schedule", sc.Name, "job", sc.Job, "snapshot", out.Snapshot, "seconds", time.Since(start).Seconds())
	}
}

// periodOf resolves a schedule's period at the time it fires.
func periodOf(p string, now time.Time) *reconcile.Period {
	switch p {
	case "previous-month":
		return reconcile.MonthOf(now, -1)
	case "current-month":
		return reconcile.MonthOf(now, 0)
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
