package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/recheck"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
)

// runRecheck reads the service again for the open findings about charges
// of a stored reconciliation, stores and prints what it found; exit 3 when
// confirmed findings are still material. It never writes to the service.
func runRecheck(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "recheck", "[store flags] [service flags] [--snapshot latest|ID] [--period YYYY-MM] [--format text|json]")
	cf := addServiceFlags(fs)
	stored := addStoredFlags(fs, "recheck the findings of")
	format := fs.String("format", "text", "output: text or json (one object per finding rechecked)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return usage.Errorf("--format must be text or json, not %q", *format)
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	opts, err := stored.options(cfg)
	if err != nil {
		return err
	}
	if err := cf.requireStore(cfg); err != nil {
		return err
	}
	secret, err := cf.secret(env)
	if err != nil {
		return err
	}
	return job.Material(env.job(ctx, cfg, job.Spec{Name: "recheck", Period: opts.Period.String()}, nil,
		recheckJob(env, cfg, secret, opts, *format)))
}

// recheckJob rechecks and prints.
func recheckJob(env *cliEnv, cfg config.Config, secret *extract.Secret, opts reconcile.Options, format string) job.Func {
	return func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
		svc := job.Service{Secret: secret, Log: env.log, Clock: env.clock}
		rep, results, req, err := job.Recheck(ctx, cfg, svc, store, opts)
		if err != nil {
			return job.Outcome{Requests: req}, err
		}
		if format == "json" {
			err = printRecheckJSON(env.stdout, results)
		} else {
			printRecheck(env.stdout, rep, results)
		}
		return job.RecheckOutcome(rep, opts.Materiality, req), err
	}
}

// recheckJSON is one finding rechecked, as --format json prints it.
type recheckJSON struct {
	Rule      string `json:"rule"`
	EntityID  string `json:"entity_id"`
	Live      string `json:"live"`
	CheckedAt string `json:"checked_at"`
	Detail    string `json:"detail"`
}

func printRecheckJSON(w io.Writer, results []recheck.Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if err := enc.Encode(recheckJSON{Rule: r.Finding.Rule, EntityID: r.Finding.EntityID, Live: r.Live,
			CheckedAt: r.CheckedAt.UTC().Format(time.RFC3339), Detail: r.Detail}); err != nil {
			return err
		}
	}
	return nil
}

func printRecheck(w io.Writer, rep *findings.Report, results []recheck.Result) {
	counts := map[string]int{}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rule\trecord\tlive\twhat changed\n")
	for _, r := range results {
		counts[r.Live]++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Finding.Rule, termsafe.String(r.Finding.EntityID), r.Live, termsafe.String(r.Detail))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nsnapshot %s: %s about charges rechecked: %d confirmed, %d changed, %d gone\n", rep.Snapshot.ID,
		plural.Of(len(results), "finding"), counts[recheck.Confirmed], counts[recheck.Changed], counts[recheck.Gone])
}

// storedFlags name a stored reconciliation: --snapshot and --period
// (recheck, fix plan).
type storedFlags struct{ snapshot, period *string }

func addStoredFlags(fs *cliFlags, verb string) storedFlags {
	return storedFlags{
		snapshot: fs.String("snapshot", reconcile.Latest, "the reconciled snapshot to "+verb+": latest, previous or an ID"),
		period:   fs.String("period", "", "the period it was reconciled for (YYYY-MM; default: the whole snapshot)"),
	}
}

// options are cfg's reconcile options (the rules' order, materiality)
// naming the stored reconciliation the flags give.
func (f storedFlags) options(cfg config.Config) (reconcile.Options, error) {
	opts, err := job.ReconcileOptions(cfg, "", "")
	if err != nil {
		return opts, err
	}
	opts.SnapshotID = *f.snapshot
	if *f.period != "" {
		if opts.Period, err = findings.ParsePeriod(*f.period); err != nil {
			return opts, usage.Wrap(err)
		}
	}
	return opts, nil
}
