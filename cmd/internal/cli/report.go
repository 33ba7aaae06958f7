package cli

import (
	"context"
	"io"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
)

func runReport(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "report", "[store flags] [reconcile flags]")
	sf := addStoreFlags(fs)
	sf.writes = true // the run goes in the journal, the findings in the store
	rf := addReconcileFlags(fs, true, true)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	opts, formats, err := rf.reportOptions(cfg)
	if err != nil {
		return err
	}
	if err := sf.requireStore(cfg); err != nil {
		return err
	}
	return job.Material(env.job(ctx, cfg, job.Spec{Name: "report", Period: opts.Period.String()}, nil, reportJob(env, cfg, opts, formats, env.stdout)))
}

// reportOptions are the reconcile options and the report formats.
func (f *reconcileFlags) reportOptions(cfg config.Config) (reconcile.Options, []string, error) {
	opts, err := f.options(cfg)
	if err != nil {
		return opts, nil, err
	}
	formats := cfg.Reports.Formats
	if f.format != "" {
		if formats, err = reports.ParseFormats(f.format); err != nil {
			return opts, nil, usage.Errorf("--format: %v", err)
		}
	}
	return opts, formats, nil
}

// report reconciles, writes the report files and prints the Markdown
// summary to w.
func (env *cliEnv) report(ctx context.Context, cfg config.Config, store *snapshot.Store, opts reconcile.Options, spec job.ReportSpec, w io.Writer) (*findings.Report, []string, error) {
	in, paths, err := job.Report(ctx, cfg, store, opts, spec, env.log)
	if err != nil {
		return nil, nil, err
	}
	return in.Report, paths, reports.Markdown(w, in, paths)
}
