//go:build heavy

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// An export against a service that is not there says so in at most three
// lines at the default level (the retries summarised, then the error), in
// real time with the default retries, exits 1, and leaves no directory.
func TestAnUnreachableServiceSaysSoBriefly(t *testing.T) {
	bin := e2etest.BinaryWithTags(t, "")
	out := filepath.Join(t.TempDir(), "store")
	cmd := exec.Command(bin, "export", "--out", out, "--base-url", "http://127.0.0.1:1", "--front-url", "http://127.0.0.1:1")
	cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY=unreachable-key")
	var all bytes.Buffer
	cmd.Stdout, cmd.Stderr = &all, &all
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != job.ExitFailure {
		t.Fatalf("export: %v, want exit %d\n%s", err, job.ExitFailure, all.String())
	}
	text := strings.TrimSpace(all.String())
	if lines := strings.Split(text, "\n"); len(lines) > 3 || !strings.Contains(text, "connection refused") || !strings.Contains(text, "retrying: connection refused") {
		t.Errorf("%d lines, want at most 3 naming the cause:\n%s", len(lines), text)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the export left %s behind (%v)", out, err)
	}
}
