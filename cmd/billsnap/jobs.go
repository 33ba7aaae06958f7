package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
)

// jobFunc is a job's work in an open output directory.
type jobFunc func(context.Context, *snapshot.Store) (schedule.Outcome, error)

// job runs fn as a recorded job in cfg's output directory: the run is
// recorded in the journal, the directory is opened (waiting up to
// lock_wait for its lock) and the metrics file is refreshed after it
// (schedule.Do).
func (env *cliEnv) job(ctx context.Context, cfg config.Config, j schedule.Job, metrics *schedule.Metrics, fn jobFunc) (schedule.Outcome, error) {
	open := snapshot.Open
	if !takesSnapshots(j.Name) {
		open = snapshot.OpenShared
	}
	e := schedule.Env{
		Open: func(ctx context.Context) (schedule.Store, error) {
			s, err := open(ctx, cfg, env.log, time.Now)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		ReadModel: func(ctx context.Context) (*sql.DB, error) { return snapshot.OpenRead(ctx, cfg) },
		Journal:   journal.Dir(cfg.Out), MetricsFile: metricsPath(cfg), Metrics: metrics, Log: env.log, Now: time.Now, Redact: env.redact,
	}
	return schedule.Do(ctx, e, j, func(ctx context.Context, s schedule.Store) (schedule.Outcome, error) {
		return fn(ctx, s.(*snapshot.Store))
	})
}

// takesSnapshots tells whether a job walks the service: it opens the
// directory with its export lock. Reconcile and report do not: they work
// beside an export, in sections of the state.
func takesSnapshots(job string) bool { return job != "reconcile" && job != "report" }

func metricsPath(cfg config.Config) string {
	if cfg.MetricsFile == "" {
		return ""
	}
	return filepath.Join(cfg.Out, cfg.MetricsFile)
}

// material turns a material outcome into the error of exit code 3.
func material(out schedule.Outcome, err error) error {
	if err == nil && out.Material {
		return materialError{out.Note}
	}
	return err
}

// exportJob takes a snapshot, applies retention and prints the figures.
func exportJob(env *cliEnv, cfg config.Config, secret *extract.Secret) jobFunc {
	return func(ctx context.Context, store *snapshot.Store) (schedule.Outcome, error) {
		sum, err := exportInto(ctx, env, cfg, secret, store)
		if err != nil {
			return schedule.Outcome{}, err
		}
		printSummary(env.stdout, cfg, sum)
		out := schedule.Outcome{Snapshot: sum.ID}
		if sum.Status != snapshot.StatusComplete {
			out.Material, out.Note = true, fmt.Sprintf("snapshot %s is incomplete: it is kept in DuckDB for inspection but not published", sum.ID)
		}
		pruned, err := store.Prune(ctx, cfg.Retention.Keep)
		if len(pruned) > 0 {
			env.log.Info("retention: deleted old snapshots", "keep", cfg.Retention.Keep, "deleted", strings.Join(pruned, ", "))
		}
		return out, err
	}
}

// reportJob reconciles, writes the reports and prints the summary.
func reportJob(env *cliEnv, cfg config.Config, opts reconcile.Options, formats []string) jobFunc {
	return func(ctx context.Context, store *snapshot.Store) (schedule.Outcome, error) {
		rep, _, err := reportInto(ctx, env, cfg, store, opts, formats)
		if err != nil {
			return schedule.Outcome{}, err
		}
		return reportOutcome(rep), nil
	}
}

// runJob exports, then reports on the snapshot just taken.
func runJob(env *cliEnv, cfg config.Config, secret *extract.Secret, opts reconcile.Options, formats []string) jobFunc {
	return func(ctx context.Context, store *snapshot.Store) (schedule.Outcome, error) {
		sum, err := exportInto(ctx, env, cfg, secret, store)
		if err != nil {
			return schedule.Outcome{}, err
		}
		if _, err := store.Prune(ctx, cfg.Retention.Keep); err != nil {
			return schedule.Outcome{Snapshot: sum.ID}, err
		}
		opts.SnapshotID = sum.ID
		rep, _, err := reportInto(ctx, env, cfg, store, opts, formats)
		if err != nil {
			return schedule.Outcome{Snapshot: sum.ID}, err
		}
		return reportOutcome(rep), nil
	}
}

// reportOutcome is the outcome of a reconciliation.
func reportOutcome(rep *reconcile.Report) schedule.Outcome {
	out := schedule.Outcome{Snapshot: rep.Snapshot.ID, Material: len(rep.Material) > 0}
	if out.Material {
		out.Note = fmt.Sprintf("material findings in snapshot %s: %s", rep.Snapshot.ID, strings.Join(rep.Material, "; "))
	}
	return out
}
