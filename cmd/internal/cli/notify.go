package cli

import (
	"context"
	"fmt"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/usage"
)

// notifyUsage is notify's own help: its subcommand.
const notifyUsage = `Usage: billsnap notify test [store flags]

test   sends a test message to every target of the notify section (webhooks and
       email), whatever events it takes, and prints how each went; exit 1 when
       one failed. The deliveries are recorded in the store like any other.

'billsnap notify test --help' lists its flags.
`

// runNotify runs notify test.
func runNotify(ctx context.Context, env *cliEnv, args []string) error {
	return dispatch(ctx, env, "notify", notifyUsage, args, subcommand{"test", runNotifyTest})
}

func runNotifyTest(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "notify test", "[store flags]")
	sf := addStoreFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	n := job.Notifier(cfg, env.log, env.redact)
	if n == nil {
		return usage.Errorf("the configuration names no notification target (config key notify)")
	}
	failed := 0
	for _, r := range n.Test(ctx) {
		if r.Err != nil {
			failed++
			fmt.Fprintf(env.stdout, "%-20s failed: %s\n", r.Target, env.redact(r.Err.Error()))
			continue
		}
		fmt.Fprintf(env.stdout, "%-20s ok\n", r.Target)
	}
	if failed > 0 {
		return fmt.Errorf("%d of the targets failed", failed)
	}
	return nil
}
