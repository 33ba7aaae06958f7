package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/billsnap/billsnap/cmd/internal/status"
	"github.com/billsnap/billsnap/usage"
)

// runStatus prints the last runs (from the journal, which no lock holds),
// the notification targets' last deliveries, what the latest snapshot
// received of its fields, and when each schedule fires next, as tables or
// as one JSON document (package status). It only reads.
func runStatus(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "status", "[--runs N] [--format table|json] [store flags]")
	sf := addStoreFlags(fs)
	n := fs.Int("runs", 10, "how many of the last runs to show")
	format := fs.String("format", "table", "table, or json: one document whose schema docs/operations.md gives")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return usage.Errorf("--format %q: want table or json", *format)
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	if _, err := os.Stat(cfg.Out); errors.Is(err, os.ErrNotExist) {
		return sf.requireStore(cfg) // a directory that is not there is a typo, or no run yet
	}
	if *format == "json" {
		return status.PrintJSON(ctx, env.stdout, cfg, *n, time.Now())
	}
	return status.PrintTable(ctx, env.stdout, cfg, *n, time.Now())
}
