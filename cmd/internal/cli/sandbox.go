package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/usage"
)

func runSandbox(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "sandbox", "--api-key KEY [--listen ADDR] [--seed N] [--customers N] [--planted N] [--months N] [--now RFC3339] [--faults SPEC] [--answer-key FILE]")
	listen := fs.String("listen", "127.0.0.1:8081", "address to serve on (port 0 picks a free one); the workspace's is 8080")
	key := fs.String("api-key", "", "API key clients must send (Base64-encoded, as a Bearer token); required")
	seed := fs.Uint64("seed", 1, "seed of the generated data")
	customers := fs.Int("customers", 250, "clean customers to generate (as the demo)")
	planted := fs.Int("planted", 2, "planted discrepancy cases per reconciliation rule 1–14 (0: clean data)")
	months := fs.Int("months", 6, "months of billing history")
	faults := fs.String("faults", "", "faults to inject, e.g. 500=0.05,429=0.02,latency=20ms (docs/sandbox.md)")
	answerKey := fs.String("answer-key", "", "write the answer key (JSON) to this file")
	now := fs.String("now", "", "the service clock, RFC 3339 (default: now)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sandboxConfig(*key, *seed, *customers, *planted, *months, *faults, *now)
	if err != nil {
		return err
	}
	srv, err := sandbox.Start(*listen, sandbox.New(cfg))
	if err != nil {
		return err
	}
	defer srv.Close()
	if *answerKey != "" {
		if err := writeJSONFile(*answerKey, srv.AnswerKey()); err != nil {
			return err
		}
	}
	// The first line is the signal that the sandbox is ready, key file written.
	fmt.Fprintf(env.stdout, "base_url=%s front_url=%s\n", srv.BaseURL(), srv.FrontURL())
	env.log.Info("sandbox serving", "url", srv.URL, "seed", *seed, "customers", *customers, "planted", *planted)
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shut)
}

func sandboxConfig(key string, seed uint64, customers, planted, months int, faults, now string) (sandbox.Config, error) {
	cfg := sandbox.Config{APIKey: key, Data: sandbox.Options{Seed: seed, Customers: customers, Planted: planted, Months: months}}
	switch {
	case key == "":
		return cfg, usage.Errorf("--api-key is required")
	case customers < 1 || planted < 0 || months < 1:
		return cfg, usage.Errorf("--customers and --months must be 1 or more, --planted 0 or more")
	}
	f, err := sandbox.ParseFaults(faults)
	if err != nil {
		return cfg, usage.Errorf("--faults: %v", err)
	}
	cfg.Faults = f
	if now != "" {
		if cfg.Data.Now, err = time.Parse(time.RFC3339, now); err != nil {
			return cfg, usage.Errorf("--now: want RFC 3339, such as 2026-11-22T03:00:00Z")
		}
	}
	return cfg, nil
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
