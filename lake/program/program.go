// Package program runs the lake's program, billsnap-lake, for a program
// that does not link the lake (billsnap itself, the benchmark): an export
// with parquet.url set runs billsnap-lake publish once it has published
// the snapshot, and lake ddl asks billsnap-lake metadata for the Iceberg
// tables. So billsnap links none of the clouds' SDKs, Arrow or iceberg-go.
package program

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/snapshot"
)

// Name is the lake's program, found beside the program that runs it or
// on PATH.
const Name = "billsnap-lake"

// Register has job run the lake's program after each export when
// parquet.url is set, unless the program links the lake itself
// (lake/drivers registered lake/publish first).
func Register() {
	if !job.LakeRegistered() {
		job.RegisterLake(Publish)
	}
}

// Publish levels the lake of cfg with its store by running billsnap-lake
// publish. What it logs goes to stderr as it comes.
func Publish(ctx context.Context, cfg config.Config, _ *snapshot.Store, _ *slog.Logger) error {
	_, err := Run(ctx, cfg, "publish")
	return err
}

// Check is what Find says when this program has to run the lake's
// program: nil when it links the lake itself.
func Check() error {
	if lake.Linked() {
		return nil
	}
	_, err := Find()
	return err
}

// Metadata is the current metadata file of each Iceberg table of cfg's
// lake: billsnap-lake metadata's, or the catalog's own when this program
// links the lake.
func Metadata(ctx context.Context, cfg config.Config) (map[string]string, error) {
	if lake.Linked() {
		return lake.TableMetadata(ctx, cfg.Iceberg, cfg.Parquet.URL, cfg.Out)
	}
	out, err := Run(ctx, cfg, "metadata")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("%s metadata: %w", Name, err)
	}
	return m, nil
}

// Run runs billsnap-lake's subcommand on cfg's store and lake
// and returns what it printed. Its stderr is billsnap's; it gets no API
// key (it never talks to the service). A usage error of it is billsnap's
// (exit 2), any other failure exit 1.
func Run(ctx context.Context, cfg config.Config, sub string) ([]byte, error) {
	path, err := Find()
	if err != nil {
		return nil, err
	}
	args := []string{sub, "--out", cfg.Out, "--parquet-url", cfg.Parquet.URL}
	if cfg.File != "" {
		args = append(args, "--config", cfg.File)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	// Interrupted, it is asked to stop as billsnap was (SIGTERM), and
	// killed if it has not within stopWait: publishing catches up later.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = stopWait
	cmd.Env = withoutKey(os.Environ())
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &exit) && exit.ExitCode() == job.ExitUsage:
		return nil, job.Usagef("%s %s refused its configuration (above)", Name, sub)
	case err != nil:
		return nil, fmt.Errorf("%s %s: %w", Name, sub, err)
	}
	return stdout.Bytes(), nil
}

// stopWait is how long the lake's program has to stop once asked.
const stopWait = 10 * time.Second

// Find is billsnap-lake's path: beside this program, else on PATH; a
// usage error naming the line that installs it when it is neither.
func Find() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), Name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(Name); err == nil {
		return p, nil
	}
	return "", job.Usagef("parquet.url is set, and the lake's program %s is not installed (beside billsnap, or on PATH): go install ./cmd/%s",
		Name, Name)
}

// withoutKey is env without the API key's variables.
func withoutKey(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, config.EnvAPIKey+"=") && !strings.HasPrefix(kv, config.EnvAPIKeyFile+"=") {
			out = append(out, kv)
		}
	}
	return out
}
