// Package lakeprogram runs the lake's program, billsnap-lake, for a
// program that does not link the lake (billsnap itself, the benchmark).
// Their mains set [Program] as job.Service's Lake, so an export with
// parquet.url set runs billsnap-lake publish once it has published the
// snapshot, and lake ddl asks billsnap-lake metadata for the Iceberg
// tables; [Find] says where billsnap-lake is installed. So billsnap links
// none of the clouds' SDKs, Arrow or iceberg-go.
package lakeprogram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
)

// Name is the lake's program, found beside the program that runs it or
// on PATH.
const Name = "billsnap-lake"

// Program is the lake reached through the lake's program.
type Program struct{}

// Publish levels the lake of cfg with its store by running billsnap-lake
// publish. What it logs goes to stderr as it comes.
func (Program) Publish(ctx context.Context, cfg config.Config, _ *snapshot.Store, _ *slog.Logger) error {
	_, err := Run(ctx, cfg, "publish")
	return err
}

// Probe is what billsnap-lake probe says of cfg's lake: reachable and
// writable (a probe object written and removed), and what is published.
func (Program) Probe(ctx context.Context, cfg config.Config) (string, error) {
	out, err := Run(ctx, cfg, "probe")
	return strings.TrimSpace(string(out)), err
}

// Check is what Find says: nil when the lake's program is installed.
func (Program) Check() error {
	_, err := Find()
	return err
}

// Metadata is the current metadata file of each Iceberg table of cfg's
// lake, by table, as billsnap-lake metadata prints it.
func (Program) Metadata(ctx context.Context, cfg config.Config) (map[string]string, error) {
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

// Where says where the lake is, for a program's version: the lake's
// program and its version, or how to install it.
func (Program) Where(ctx context.Context) string {
	path, err := Find()
	if err != nil {
		return "not installed: go install -tags lake ./cmd/" + Name
	}
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return fmt.Sprintf("%s, which does not run: %v", path, err)
	}
	return fmt.Sprintf("%s (%s)", strings.TrimSpace(string(out)), path)
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
	said := &lastLine{prefix: Name + " " + sub + ": "}
	cmd.Stdout, cmd.Stderr = &stdout, io.MultiWriter(os.Stderr, said)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &exit) && exit.ExitCode() == job.ExitUsage:
		return nil, usage.Errorf("%s %s refused its configuration (above)", Name, sub)
	case err != nil && said.error != "":
		return nil, fmt.Errorf("%s %s: %s (%w)", Name, sub, said.error, err)
	case err != nil:
		return nil, fmt.Errorf("%s %s: %w", Name, sub, err)
	}
	return stdout.Bytes(), nil
}

// lastLine keeps the last line written to it that begins with prefix
// (the lake's program's error, "billsnap-lake publish: …"), without it.
type lastLine struct {
	prefix, error string
	partial       []byte
}

func (l *lastLine) Write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		if rest, ok := strings.CutPrefix(string(l.partial[:i]), l.prefix); ok {
			l.error = rest
		}
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 64<<10 { // a line that long is no error line
		l.partial = l.partial[:0]
	}
	return len(p), nil
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
	return "", usage.Errorf("parquet.url is set, and the lake's program %s is not installed (beside billsnap, or on PATH): go install -tags lake ./cmd/%s",
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
