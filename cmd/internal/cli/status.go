package cli

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
// as one JSON document (package status). With --verify it also reads
// every Parquet file of every snapshot kept and checks it against its
// snapshot's manifest, naming each that differs (exit 1 when one does).
// It only reads.
func runStatus(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "status", "[--runs N] [--format table|json] [--verify] [store flags]")
	sf := addStoreFlags(fs)
	n := fs.Int("runs", 10, "how many of the last runs to show")
	format := fs.String("format", "table", "table, or json: one document whose schema docs/operations.md gives")
	verify := fs.Bool("verify", false, "also read every Parquet file of every snapshot kept and check its SHA-256 against the snapshot's manifest; exit 1 naming each that differs")
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
	var verified *status.Verified
	if *verify {
		if verified, err = status.Verify(ctx, cfg, time.Now); err != nil {
			return err
		}
	}
	if *format == "json" {
		if err := status.PrintJSON(ctx, env.stdout, cfg, *n, time.Now(), verified); err != nil {
			return err
		}
		return verified.Err()
	}
	if err := status.PrintTable(ctx, env.stdout, cfg, *n, time.Now()); err != nil {
		return err
	}
	if verified != nil {
		status.PrintVerified(env.stdout, verified)
	}
	return verified.Err()
}
