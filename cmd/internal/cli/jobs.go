package cli

import (
	"context"
	"io"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/cmd/internal/progress"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
)

// job runs fn as the recorded job j in cfg's store (job.InStore); its
// error carries its hint (withHint), so that the journal keeps it.
func (env *cliEnv) job(ctx context.Context, cfg config.Config, j job.Spec, metrics *schedule.Metrics, fn job.Func) (job.Outcome, error) {
	return job.InStore(ctx, cfg, j, env.log, env.redact, metrics, func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
		out, err := fn(ctx, store)
		return out, env.withHint(err)
	})
}

// export takes a snapshot with the progress cfg asks for.
func (env *cliEnv) export(ctx context.Context, cfg config.Config, secret *extract.Secret, store *snapshot.Store) (sum *snapshot.Summary, req journal.Requests, err error) {
	prog := progress.New(cfg.Progress, env.rawStderr, env.screen, env.log, 5*time.Second, len(catalog.CollectionNames()))
	defer func() { prog.Done(err == nil) }()
	return job.Export(ctx, cfg, job.Service{Secret: secret, Log: env.log, Clock: env.clock, Progress: prog, Lake: env.lake.Publish}, store)
}

// exportJob takes a snapshot, applies retention and prints the figures
// to w.
func exportJob(env *cliEnv, cfg config.Config, secret *extract.Secret, w io.Writer) job.Func {
	return func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
		sum, req, err := env.export(ctx, cfg, secret, store)
		if sum != nil {
			printSummary(w, cfg, sum)
		}
		return job.ExportOutcome(sum, req), err
	}
}

// reportJob reconciles, writes the reports and prints the summary to w.
func reportJob(env *cliEnv, cfg config.Config, opts reconcile.Options, formats []string, w io.Writer) job.Func {
	return func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
		rep, _, err := env.report(ctx, cfg, store, opts, job.ReportSpec{Formats: formats}, w)
		if err != nil {
			return job.Outcome{}, err
		}
		return job.ReconcileOutcome(rep), nil
	}
}

// runJob exports, then reports on the snapshot just taken; the summary
// goes to w.
func runJob(env *cliEnv, cfg config.Config, secret *extract.Secret, opts reconcile.Options, formats []string, w io.Writer) job.Func {
	return func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
		sum, req, err := env.export(ctx, cfg, secret, store)
		if err != nil {
			return job.Outcome{Snapshot: job.ExportOutcome(sum, req).Snapshot, Requests: req}, err
		}
		opts.SnapshotID = sum.ID
		rep, _, err := env.report(ctx, cfg, store, opts, job.ReportSpec{Formats: formats}, w)
		if err != nil {
			return job.Outcome{Snapshot: sum.ID, Requests: req}, err
		}
		out := job.ReconcileOutcome(rep)
		out.Requests = req
		return out, nil
	}
}
