package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// An --out billsnap cannot use is exit 2, at most two lines naming it,
// from every command that takes one, before any work: nothing is made.
func TestAnUnusableOutIsAUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o500); err != nil {
		t.Fatal(err)
	}
	outs := map[string]string{
		"a file":                file,
		"a missing parent":      filepath.Join(dir, "missing", "store"),
		"a file as its parent":  filepath.Join(file, "store"),
		"a folder not writable": filepath.Join(locked, "store"),
	}
	commands := [][]string{{"export"}, {"run"}, {"status"}, {"reconcile"}, {"report"},
		{"query", "SELECT 1"}, {"serve"}, {"ledger", "verify"}}
	for what, out := range outs {
		for _, c := range commands {
			if what == "a folder not writable" && (os.Geteuid() == 0 || !writer(c[0])) {
				continue // root writes anywhere; a reader needs no write
			}
			args := append(append([]string{}, c...), "--out", out)
			var stdout, stderr bytes.Buffer
			code := e2etest.RunWith(context.Background(), args, &stdout, &stderr, e2etest.NoEnv)
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if code != job.ExitUsage || len(lines) > 2 || !strings.Contains(stderr.String(), "--out "+out) {
				t.Errorf("%s with %s: exit %d, %d lines:\n%s", c[0], what, code, len(lines), stderr.String())
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("a command made the missing parent")
	}
}

// writer tells whether command makes its store when it is not there.
func writer(command string) bool { return command == "export" || command == "run" }
