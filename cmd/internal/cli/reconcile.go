package cli

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
	"github.com/billsnap/billsnap/worklist"
)

// reconcileFlags are the flags of reconcile, report and run.
type reconcileFlags struct {
	snapshot, period, asOf, waivers, rules, format string
	reportFiles                                    bool // --format names report files, not the stdout format
}

func addReconcileFlags(fs *cliFlags, withSnapshot, reportFiles bool) *reconcileFlags {
	f := &reconcileFlags{reportFiles: reportFiles}
	fs.group("Reconcile flags", func() {
		if withSnapshot {
			fs.StringVar(&f.snapshot, "snapshot", "", "snapshot to reconcile: an ID, latest (the latest complete one, the default) or previous (the complete one before it)")
		}
		fs.StringVar(&f.period, "period", "", "limit the invoice rules to a month, YYYY-MM (UTC)")
		fs.StringVar(&f.asOf, "as-of", "", "the moment rules judge from, RFC 3339 or YYYY-MM-DD (default: the snapshot's start)")
		fs.StringVar(&f.waivers, "waivers", "", "YAML file of waivers (default: config reconcile.waivers)")
		fs.StringVar(&f.rules, "rules", "", "directory of .sql rules to add or replace (default: config reconcile.rules_dir)")
		if reportFiles {
			fs.StringVar(&f.format, "format", "", "report files to write, a comma-separated subset of md,html,xlsx,csv,json (default: config reports.formats)")
		} else {
			fs.StringVar(&f.format, "format", "text", "output: text, json (one object per finding per line) or csv")
		}
	})
	return f
}

// options turns the flags and the configuration into reconcile options
// (job.ReconcileOptions, with the snapshot, period and as-of of the flags).
func (f *reconcileFlags) options(cfg config.Config) (reconcile.Options, error) {
	if !f.reportFiles && !strings.Contains(" text json csv ", " "+f.format+" ") {
		return reconcile.Options{}, usage.Errorf("--format must be text, json or csv, not %q", f.format)
	}
	o, err := job.ReconcileOptions(cfg, f.rules, f.waivers)
	if err != nil {
		return o, err
	}
	o.SnapshotID = f.snapshot
	if f.period != "" {
		if o.Period, err = findings.ParsePeriod(f.period); err != nil {
			return o, usage.Wrap(err)
		}
	}
	if f.asOf != "" {
		if o.AsOf, err = parseTime(f.asOf); err != nil {
			return o, usage.Errorf("--as-of: %v", err)
		}
	}
	return o, nil
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("want RFC 3339 (2026-11-22T03:00:00Z) or a date (2026-11-22), not %q", s)
}

func runReconcile(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "reconcile", "[store flags] [reconcile flags]")
	sf := addStoreFlags(fs)
	sf.writes = true // the run goes in the journal, the findings in the store
	rf := addReconcileFlags(fs, true, false)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	opts, err := rf.options(cfg)
	if err != nil {
		return err
	}
	if err := sf.requireStore(cfg); err != nil {
		return err
	}
	return job.Material(env.job(ctx, cfg, job.Spec{Name: "reconcile", Period: opts.Period.String()}, nil,
		func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
			return reconcileAndPrint(ctx, env, store, opts, rf.format)
		}))
}

// reconcileAndPrint reconciles and writes the report in format to stdout;
// as JSON, each finding with its work (assignee, due, age_days, overdue).
func reconcileAndPrint(ctx context.Context, env *cliEnv, store *snapshot.Store, opts reconcile.Options, format string) (job.Outcome, error) {
	var work worklist.Reading
	var then func(db *sql.DB, rep *findings.Report) error
	if format == "json" || format == "csv" {
		then = func(db *sql.DB, rep *findings.Report) (err error) {
			work, err = job.WorkOf(ctx, store.Dir(), db, rep)
			return err
		}
	}
	rep, err := job.Reconcile(ctx, store, opts, env.log, then)
	if err != nil {
		return job.Outcome{}, err
	}
	switch format {
	case "json":
		err = worklist.JSONLines(env.stdout, rep, work)
	case "csv":
		err = reports.CSV(env.stdout, rep, work.ForReports())
	default:
		err = reports.Text(env.stdout, rep)
	}
	return job.ReconcileOutcome(rep), err
}

// runRun is export, then reconcile of the snapshot just taken, then its
// reports; the Markdown summary goes to stdout.
func runRun(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "run", "[store flags] [service flags] [reconcile flags]")
	cf := addServiceFlags(fs)
	rf := addReconcileFlags(fs, false, true)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	opts, formats, err := rf.reportOptions(cfg)
	if err != nil {
		return err
	}
	secret, err := cf.secret(env)
	if err != nil {
		return err
	}
	return job.Material(env.job(ctx, cfg, job.Spec{Name: "run", Period: opts.Period.String(), ExportLock: true}, nil, runJob(env, cfg, secret, opts, formats, env.stdout)))
}
