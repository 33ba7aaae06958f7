package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
)

// runDemo runs the job against the sandbox started in-process with a key
// of its own: no credentials, nothing to set up.
func runDemo(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "demo", "[--out DIR] [--customers N] [--seed N]")
	out := fs.String("out", "billsnap-demo", "output directory")
	customers := fs.Int("customers", 250, "clean customers in the sandbox")
	seed := fs.Uint64("seed", 1, "seed of the sandbox's data")
	progressMode := fs.String("progress", "auto", "progress on stderr: auto, bar, log or none")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	key := rand.Text()
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{APIKey: key,
		Data: sandbox.Options{Seed: *seed, Customers: *customers, Planted: 2}}))
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(env.stdout, "sandbox: base_url=%s front_url=%s (seed %d, %d customers, 2 planted cases per rule)\n\n",
		srv.BaseURL(), srv.FrontURL(), *seed, *customers)
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = srv.BaseURL(), srv.FrontURL(), *out, *progressMode
	if err := cfg.Validate(); err != nil {
		return job.Usage(err)
	}
	secret := extract.NewSecret(key)
	env.setSecret(secret)
	var paths []string
	_, err = env.job(ctx, cfg, job.Spec{Name: "demo"}, nil, func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
		sum, _, err := env.export(ctx, cfg, secret, store)
		if err != nil {
			return job.Outcome{}, err
		}
		printSummary(env.stdout, cfg, sum)
		fmt.Fprintf(env.stdout, "\n")
		opts, err := job.ReconcileOptions(cfg, "", "")
		if err != nil {
			return job.Outcome{}, err
		}
		opts.SnapshotID = sum.ID
		rep, written, err := env.report(ctx, cfg, store, opts, cfg.Reports.Formats)
		if err != nil {
			return job.Outcome{}, err
		}
		paths = written
		if len(rep.Material) > 0 {
			fmt.Fprintf(env.stdout, "\n(These are the sandbox's planted cases: billsnap run would exit 3 here; the demo exits 0.)\n")
		}
		return job.ReconcileOutcome(rep), nil
	})
	if err != nil {
		return err
	}
	q := snapshot.ExampleQuery
	fmt.Fprintf(env.stdout, "\nQuery the snapshot (no DuckDB CLI needed):\n  go run ./cmd/billsnap query --out %s \"%s\"\n", cfg.Out, q)
	fmt.Fprintf(env.stdout, "or with the DuckDB CLI on %s, or any Parquet reader on %s.\n",
		filepath.Join(cfg.Out, cfg.DuckDB.File), filepath.Join(cfg.Out, cfg.Parquet.Dir, "<table>", "*", "*.parquet"))
	fmt.Fprintf(env.stdout, "\nReports:\n")
	for _, p := range paths {
		fmt.Fprintf(env.stdout, "  %s\n", p)
	}
	fmt.Fprintf(env.stdout, "\nReview, waive and sign off the findings in the workspace (then open http://127.0.0.1:8080/):\n  go run ./cmd/billsnap serve --out %s\n", cfg.Out)
	return nil
}
