package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/billsnap/billsnap/fix"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
)

// fixUsage is fix's own help: its two subcommands.
const fixUsage = `Usage: billsnap fix plan [store flags] [--snapshot latest|ID] [--period YYYY-MM] [--amounts FILE] > plan.json
       billsnap fix apply --plan FILE [--dry-run] [--force] [store flags] [service flags]

plan   writes a reviewable plan of the writes the service's own operations can
       make to repair findings: markpaid for invoices settled in full with no
       PaymentDate, setamount for the quantities a person chose (--amounts, a CSV
       reference_id,amount); each action names its finding. It reads the store only.
apply  applies a plan once: --dry-run prints every request and sends none; every
       request and answer is recorded in the store; a write whose fate is unknown
       is read back before it is sent again; what the record shows made is never
       sent again. A plan changed since it was made, or made from a snapshot that
       is no longer the latest, is refused (exit 2) unless --force.

'billsnap fix plan --help' and 'billsnap fix apply --help' list their flags.
`

// runFix runs fix plan or fix apply.
func runFix(ctx context.Context, env *cliEnv, args []string) error {
	return dispatch(ctx, env, "fix", fixUsage, args, subcommand{"plan", runFixPlan}, subcommand{"apply", runFixApply})
}

func runFixPlan(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "fix plan", "[store flags] [--snapshot latest|ID] [--period YYYY-MM] [--amounts FILE] > plan.json")
	sf := addStoreFlags(fs)
	stored := addStoredFlags(fs, "plan for")
	amountsFile := fs.String("amounts", "", "CSV reference_id,amount: the quantities to set (spec §4.3), each tied to an open finding")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	opts, err := stored.options(cfg)
	if err != nil {
		return err
	}
	var amounts []fix.Amount
	if *amountsFile != "" {
		if amounts, err = fix.ReadAmounts(*amountsFile); err != nil {
			return usage.Wrap(err)
		}
	}
	if err := sf.requireStore(cfg); err != nil {
		return err
	}
	p, err := job.FixPlan(ctx, cfg, opts, amounts)
	if err != nil {
		return err
	}
	env.log.Info("plan made", "snapshot", p.Snapshot, "actions", len(p.Actions), "digest", p.Digest)
	return p.Write(env.stdout)
}

func runFixApply(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "fix apply", "--plan FILE [--dry-run] [--force] [store flags] [service flags]")
	cf := addServiceFlags(fs)
	planFile := fs.String("plan", "", "the plan to apply (from billsnap fix plan)")
	dryRun := fs.Bool("dry-run", false, "print every request apply would send, and send none")
	force := fs.Bool("force", false, "apply a plan whose digest does not match, or made from a snapshot that is not the latest")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *planFile == "" {
		return usage.Errorf("--plan is required")
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	p, err := fix.Read(*planFile)
	if err != nil {
		return usage.Wrap(err)
	}
	if err := cf.requireStore(cfg); err != nil {
		return err
	}
	if err := job.CheckPlan(ctx, cfg, p, *force); err != nil {
		return err
	}
	secret, err := cf.secret(env)
	if err != nil {
		return err
	}
	svc := job.Service{Secret: secret, Log: env.log, Clock: env.clock}
	if *dryRun {
		_, _, err := job.FixApply(ctx, cfg, svc, p, true, env.stdout)
		return err
	}
	_, err = env.job(ctx, cfg, job.Spec{Name: "fix", ExportLock: true}, nil, func(ctx context.Context, _ *snapshot.Store) (job.Outcome, error) {
		start := time.Now()
		sum, req, err := job.FixApply(ctx, cfg, svc, p, false, env.stdout)
		fmt.Fprintf(env.stdout, "plan %s: %d done, %d done before, %d made by an earlier apply, %d refused; %s sent (%.1fs)\n",
			p.Digest[:12], sum.Done, sum.AlreadyDone, sum.Skipped, sum.Failed, plural.Of(sum.Writes, "write"), time.Since(start).Seconds())
		if err == nil && sum.Failed > 0 {
			err = fmt.Errorf("the service refused %d of the plan's writes: the record of writes says why (%s)", sum.Failed, layout.Dir(cfg.Out).Fixes())
		}
		return job.Outcome{Requests: req}, err
	})
	return err
}
