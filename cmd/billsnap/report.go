package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
)

func runReport(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "report", "[store flags] [reconcile flags]")
	sf := addStoreFlags(fs)
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
	return material(env.job(ctx, cfg, schedule.Job{Name: "report", Period: opts.Period.String()}, nil, reportJob(env, cfg, opts, formats)))
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
			return opts, nil, usagef("--format: %v", err)
		}
	}
	return opts, formats, nil
}

// reportInto reconciles, writes the report files under the output
// directory and prints the Markdown summary.
func reportInto(ctx context.Context, env *cliEnv, cfg config.Config, store *snapshot.Store, opts reconcile.Options, formats []string) (*reconcile.Report, []string, error) {
	var in *reports.Input
	rep, err := reconcileIn(ctx, env, store, opts, func(db *sql.DB, rep *reconcile.Report) error {
		var err error
		in, err = reportInput(ctx, cfg, db, rep)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	paths, err := reports.Write(reports.Dir(filepath.Join(cfg.Out, cfg.Reports.Dir), in), in, formats)
	if err != nil {
		return nil, nil, err
	}
	return rep, paths, reports.Markdown(env.stdout, in, paths)
}

// reportInput gathers what the reports show besides the findings, from
// db, the state.
func reportInput(ctx context.Context, cfg config.Config, db *sql.DB, rep *reconcile.Report) (*reports.Input, error) {
	tables, err := snapshot.Manifest(ctx, db, rep.Snapshot.ID)
	if err != nil {
		return nil, err
	}
	trend, err := reconcile.Trend(ctx, db, rep.Period, rep.Snapshot, cfg.Reports.Trend)
	if err != nil {
		return nil, err
	}
	fields, err := snapshot.Fields(ctx, db, rep.Snapshot.ID)
	if err != nil {
		return nil, err
	}
	in := &reports.Input{Report: rep, Tables: tables, Fields: fields, Trend: trend, Generated: time.Now(), MaxRows: cfg.Reports.MaxRows}
	if len(rep.Material) > 0 {
		in.ExitCode = exitMaterial
	}
	return in, nil
}
