package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
)

func runExport(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "export", "[store flags] [service flags]")
	cf := addServiceFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	secret, err := cf.secret(env)
	if err != nil {
		return err
	}
	return job.Material(env.job(ctx, cfg, job.Spec{Name: "export", ExportLock: true}, nil, exportJob(env, cfg, secret, env.stdout)))
}

// printSummary writes the per-table figures and where the snapshot is.
func printSummary(out io.Writer, cfg config.Config, sum *snapshot.Summary) {
	names, width := make([]string, len(sum.Tables)), len("collection")
	for i, st := range sum.Tables {
		if names[i] = st.Table; st.Collection != st.Table {
			names[i] = fmt.Sprintf("%s (in %s)", st.Table, st.Collection)
		}
		width = max(width, len(names[i]))
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\twalks\tpages\trecords\tTotalCount\tseconds\t\n", width, "collection")
	for i, st := range sum.Tables {
		if st.Collection != st.Table {
			fmt.Fprintf(tw, "%-*s\t-\t-\t%d\t-\t-\t\n", width, names[i], st.ParquetRows)
			continue
		}
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%d\t%.2f\t\n", width, names[i], st.Walks, st.Pages, st.ParquetRows, st.TotalCount, st.Seconds)
	}
	tw.Flush()
	fmt.Fprintf(out, "\nsnapshot %s: %s (%.1fs)\n", sum.ID, sum.Status, sum.Finished.Sub(sum.Started).Seconds())
	for _, st := range sum.Tables {
		if !st.Complete && st.Problem != "" && st.Collection == st.Table {
			fmt.Fprintf(out, "  %s is incomplete: %s\n", st.Table, termsafe.Lines(st.Problem))
		}
	}
	printFieldNotes(out, manifest.Notes(sum.Fields, sum.Tables))
	fmt.Fprintf(out, "duckdb:  %s\n", filepath.Join(cfg.Out, cfg.DuckDB.File))
	if sum.Status == snapshot.StatusComplete {
		fmt.Fprintf(out, "parquet: %s\n", filepath.Join(cfg.Out, cfg.Parquet.Dir, "<table>", snapshot.PartitionKey+"="+sum.ID))
	}
}

// printFieldNotes says which fields arrived otherwise than their columns'
// types, which came without a typed column and which never came.
func printFieldNotes(out io.Writer, n manifest.FieldNotes) {
	if len(n.Drifted) == 0 {
		fmt.Fprintln(out, "fields:  every typed field arrived in its own type")
	} else {
		fmt.Fprintf(out, "fields:  %s coerced, %d untyped (NULL in their column, kept in _raw):\n", plural.Of(n.Coerced(), "value"), n.Untyped())
	}
	for _, group := range []struct {
		label  string
		fields []manifest.FieldStats
	}{{"", n.Drifted}, {"new ", n.New}, {"absent ", n.Absent}} {
		for _, f := range group.fields {
			fmt.Fprintf(out, "  %s%s: %s\n", group.label, termsafe.String(f.Name()), termsafe.String(f.Summary())) // field names come from the service
		}
	}
}

// runCheckConfig prepares everything the commands would, without running
// any: the configuration and the key, the collections and the field
// mapping, the rules with the rules directory, the waivers, the
// materiality thresholds, the schedules and the workspace's identities
// (its tokens file read). Then, unless --offline, it probes the service
// with the key (probeService). It prints what it found.
func runCheckConfig(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "check-config", "[--offline] [store flags] [service flags]")
	cf := addServiceFlags(fs)
	offline := fs.Bool("offline", false, "do not probe the service with the key (one request for the first page of its smallest list)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	secret, err := cf.secret(env)
	if err != nil {
		return err
	}
	opts, err := job.ReconcileOptions(cfg, "", "")
	if err != nil {
		return err
	}
	next, err := schedule.NextFires(cfg.Schedules, time.Now())
	if err != nil {
		return usage.Errorf("schedules: %v", err)
	}
	ctl, err := accessControl(env, cfg.Workspace, "")
	if err != nil {
		return err
	}
	lake, err := probeLake(ctx, env, cfg)
	if err != nil {
		return err
	}
	service := "not probed (--offline)"
	if !*offline {
		if service, err = probeService(ctx, env, cfg, secret); err != nil {
			return err
		}
	}
	printConfig(env.stdout, cfg, cf.describeKey(env), opts, next)
	fmt.Fprintf(env.stdout, "  workspace: %s\n", identityText(ctl))
	fmt.Fprintf(env.stdout, "  lake:      %s\n", lake)
	fmt.Fprintf(env.stdout, "  service:   %s\n", service)
	return nil
}

// probeService says what check-config found of the service: the key
// accepted by one authenticated request (job.ProbeService). A request
// that fails is a failure (exit 1) naming where the key came from, with
// its hint.
func probeService(ctx context.Context, env *cliEnv, cfg config.Config, secret *extract.Secret) (string, error) {
	url, err := job.ProbeService(ctx, cfg, job.Service{Secret: secret, Log: env.log, Clock: env.clock})
	if err != nil {
		return "", env.withHint(fmt.Errorf("probing the service with the API key %s: %w", env.keyFrom(), err))
	}
	return fmt.Sprintf("the API key (%s) accepted: GET %s answered", env.keyFrom(), url), nil
}

// probeLake says what check-config found of parquet.url: none set, or the
// lake (its scheme known and the lake's program present, which loading
// the configuration checked) reachable and writable, a probe object
// written there and removed. A lake that is not is a usage error naming
// parquet.url and what failed.
func probeLake(ctx context.Context, env *cliEnv, cfg config.Config) (string, error) {
	if cfg.Parquet.URL == "" {
		return "none (parquet.url not set)", nil
	}
	found, err := env.lake.Probe(ctx, cfg)
	if err != nil {
		return "", usage.Errorf("parquet.url %s: %v", cfg.Parquet.URL, err)
	}
	return fmt.Sprintf("%s, through %s: %s", cfg.Parquet.URL, env.lake.Where(ctx), found), nil
}

// printConfig says what check-config prepared.
func printConfig(w io.Writer, cfg config.Config, key string, opts reconcile.Options, next []schedule.Next) {
	fmt.Fprintf(w, "configuration OK\n  base_url:  %s\n  front_url: %s\n  out:       %s\n  api key:   set, %s\n",
		cfg.BaseURL, cfg.FrontURL, cfg.Out, key)
	fmt.Fprintf(w, "  concurrency %d, prefetch %d, max_rewalks %d, timeout %s, retry %d attempts\n",
		cfg.Concurrency, cfg.Prefetch, cfg.MaxRewalks, cfg.Timeout, cfg.Retry.MaxAttempts)
	fmt.Fprintf(w, "  rules:     %d%s\n", len(opts.Rules), from(cfg.Reconcile.RulesDir, "with the directory "))
	fmt.Fprintf(w, "  waivers:   %d%s\n", len(opts.Waivers), from(cfg.Reconcile.Waivers, "from "))
	fmt.Fprintf(w, "  reports:   %s\n", strings.Join(cfg.Reports.Formats, ", "))
	for _, n := range next {
		fmt.Fprintf(w, "  schedule %s: %s %q, next %s\n", n.Name, n.Job, n.Spec, n.At.UTC().Format(time.RFC3339))
	}
}

// from is " (prefix path)" when path is set.
func from(path, prefix string) string {
	if path == "" {
		return ""
	}
	return " (" + prefix + path + ")"
}
