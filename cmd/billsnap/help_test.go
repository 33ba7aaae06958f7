package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/job"
)

// outputOf runs billsnap with args and returns its exit code and stdout.
func outputOf(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	return cli.Run(context.Background(), args, &stdout, &stderr, cli.Options{Lake: e2etest.TestLake()}), stdout.String()
}

// `billsnap help CMD` prints what `billsnap CMD --help` does, a
// subcommand's too; `--version`, `-version` and `-v` print what `version`
// does. `help` alone is the top-level usage, and `help` of a command that
// does not exist is a usage error.
func TestHelpAndVersionAsOtherToolsSpellThem(t *testing.T) {
	t.Parallel()
	for _, c := range [][2][]string{
		{{"help", "run"}, {"run", "--help"}},
		{{"help", "fix", "plan"}, {"fix", "plan", "--help"}},
		{{"help"}, {"--help"}},
		{{"--version"}, {"version"}},
		{{"-version"}, {"version"}},
		{{"-v"}, {"version"}},
	} {
		code, got := outputOf(t, c[0]...)
		wantCode, want := outputOf(t, c[1]...)
		if code != job.ExitOK || wantCode != job.ExitOK || got != want || got == "" {
			t.Errorf("%q: exit %d, printed %q; want exit 0 and what %q prints (exit %d): %q", c[0], code, got, c[1], wantCode, want)
		}
	}
	if code, _ := outputOf(t, "help", "nope"); code != job.ExitUsage {
		t.Errorf("help nope: exit %d, want %d", code, job.ExitUsage)
	}
}
