package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/job"
)

// helpOf is what `billsnap args --help` prints.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if code := e2etest.RunWith(context.Background(), append(args, "--help"), &out, io.Discard, e2etest.NoEnv); code != job.ExitOK {
		t.Fatalf("%v --help: exit %d", args, code)
	}
	return out.String()
}

var helpFlag = regexp.MustCompile(`(?m)^  (--[a-z0-9-]+|-[a-z])\b`)

// Every command's usage line names each of its own flags, and each group
// of flags it takes ("[store flags]"), as its --help lists them.
func TestUsageLinesListEveryFlag(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, name := range cli.CommandNames() {
		for _, args := range subcommandArgs(name) {
			checked++
			_, page, _ := strings.Cut(helpOf(t, args...), "\n\n") // after the sentence that says what it does
			usage, rest, _ := strings.Cut(page, "\n")
			for section := range strings.SplitSeq(rest, "\n\n") {
				title, flags, _ := strings.Cut(strings.TrimSpace(section), ":\n")
				switch {
				case title == "Flags":
					for _, f := range helpFlag.FindAllStringSubmatch(flags, -1) {
						if !regexp.MustCompile(regexp.QuoteMeta(f[1]) + `\b`).MatchString(usage) {
							t.Errorf("%s: %q does not name its flag %s", strings.Join(args, " "), usage, f[1])
						}
					}
				case strings.HasSuffix(title, " flags") && !strings.Contains(usage, "["+strings.ToLower(title)+"]"):
					t.Errorf("%s: %q does not name its %s", strings.Join(args, " "), usage, strings.ToLower(title))
				}
			}
		}
	}
	if checked < 17 {
		t.Errorf("%d commands checked", checked)
	}
}

// subcommandArgs are the commands a top-level command stands for.
func subcommandArgs(name string) [][]string {
	switch name {
	case "fix":
		return [][]string{{"fix", "plan"}, {"fix", "apply"}}
	case "ledger":
		return [][]string{{"ledger", "verify"}, {"ledger", "chain"}}
	case "evidence":
		return [][]string{{"evidence"}, {"evidence", "verify"}}
	case "notify":
		return [][]string{{"notify", "test"}}
	case "lake":
		return [][]string{{"lake", "ddl"}}
	}
	return [][]string{{name}}
}

// The top-level help's commands line up, however long their names, with
// two spaces at least between a name and its summary.
func TestTheCommandsLineUp(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	e2etest.RunWith(context.Background(), []string{"--help"}, &out, io.Discard, e2etest.NoEnv)
	_, list, _ := strings.Cut(out.String(), "Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	column := -1
	for line := range strings.Lines(list) {
		at := regexp.MustCompile(`^  \S+\s{2,}`).FindStringIndex(line)
		if at == nil {
			t.Fatalf("line %q", line)
		}
		if column >= 0 && at[1] != column {
			t.Errorf("%q starts its summary at column %d, the others at %d", strings.TrimSpace(line), at[1], column)
		}
		column = at[1]
	}
}

// The README's first screen (40 lines) holds what a newcomer needs first:
// the install that puts billsnap on PATH, the demo, the tests, and how
// long the first run took.
func TestTheREADMEsFirstScreen(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 41)
	first := strings.Join(lines[:min(40, len(lines))], "\n")
	for _, want := range []string{"go install -tags lake ./cmd/...", "go env GOPATH)/bin:$PATH", "go run ./cmd/billsnap demo", "go test ./...", "The first run of the demo"} {
		if !strings.Contains(first, want) {
			t.Errorf("the README's first 40 lines lack %q", want)
		}
	}
}
