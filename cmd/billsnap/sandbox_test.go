package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
)

// startSandboxCommand runs `billsnap sandbox args…` in the background and
// returns its base_url and front_url from its first stdout line. The command
// stops, and its exit code is checked to be 0, when the test ends.
func startSandboxCommand(t *testing.T, args ...string) (base, front string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		code := e2etest.RunWith(ctx, append([]string{"sandbox", "--listen", "127.0.0.1:0"}, args...), pw, io.Discard, e2etest.NoEnv)
		pw.Close()
		done <- code
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != job.ExitOK {
			t.Errorf("sandbox exit code %d after SIGTERM-like cancel, want 0", code)
		}
	})
	for f := range strings.FieldsSeq(line) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "base_url":
			base = v
		case "front_url":
			front = v
		}
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasPrefix(front, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	return base, front
}

func TestSandboxCommandWritesTheAnswerKey(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "k.json")
	startSandboxCommand(t, "--api-key", "k", "--seed", "5", "--customers", "30", "--planted", "1", "--answer-key", file)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var k sandbox.AnswerKey
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	if len(k.Tables) != 15 || len(k.Rules) != 14 || k.Seed != 5 || k.Tables["customers"].Count != 30+14 {
		t.Errorf("answer key: %d tables, %d rules, seed %d, customers %+v", len(k.Tables), len(k.Rules), k.Seed, k.Tables["customers"])
	}
	for rule, fs := range k.Rules {
		if len(fs) == 0 {
			t.Errorf("rule %s has no planted finding", rule)
		}
	}
}

func TestSandboxCommandUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sandbox"}, "--api-key is required"},
		{[]string{"sandbox", "--api-key", "k", "--faults", "500=7"}, `--faults: fault "500=7"`},
		{[]string{"sandbox", "--api-key", "k", "--customers", "0"}, "--customers"},
		{[]string{"sandbox", "--api-key", "k", "--now", "today"}, "--now"},
		{[]string{"sandbox", "--bogus"}, "bogus"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	} {
		var out, errb bytes.Buffer
		if code := e2etest.RunWith(context.Background(), tc.args, &out, &errb, e2etest.NoEnv); code != job.ExitUsage || !strings.Contains(errb.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), job.ExitUsage, tc.msg)
		}
	}
}

func TestHelpNamesExitCodes(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]string{"--help": "130  interrupted", "sandbox --help": "0    stopped by SIGINT or SIGTERM", "demo -h": "130  interrupted"} {
		var out bytes.Buffer
		if code := e2etest.RunWith(context.Background(), strings.Fields(args), &out, io.Discard, e2etest.NoEnv); code != job.ExitOK || !strings.Contains(out.String(), want) {
			t.Errorf("%v: exit %d, output %q", args, code, out.String())
		}
	}
}

func TestDemoRuns(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	dir := t.TempDir()
	if code := e2etest.RunTuned(context.Background(), []string{"demo", "--out", dir, "--progress", "none"}, &out, &errb, e2etest.NoEnv); code != job.ExitOK {
		t.Fatalf("demo exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"customers                                            1      3      278         278",
		": complete (", "duckdb:  " + dir + "/billsnap.duckdb", "query --out " + dir,
		"sandbox: seed 1, 250 customers, 2 planted cases per rule, now 20",
		"# billsnap: MATERIAL (exit 0: the demo exits 0 whatever it finds; billsnap run exits 3 here)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	var status bytes.Buffer
	if code := e2etest.RunWith(context.Background(), []string{"status", "--out", dir}, &status, io.Discard, e2etest.NoEnv); code != job.ExitOK ||
		!regexp.MustCompile(`\bdemo\s+-\s+-\s+material\s+0\s`).MatchString(status.String()) {
		t.Errorf("status does not record the demo as material, exit 0, as it printed (exit %d):\n%s", code, status.String())
	}
	checkQueryFlags(t, dir)
}

// totalsOf is what a demo's output says of the findings: the rules' rows
// and the totals per currency.
func totalsOf(out string) string {
	var keep []string
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "| ") && strings.Count(line, "|") == 10 || strings.HasPrefix(line, "- ") && strings.Contains(line, ": net ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

// checkQueryFlags queries the store in dir through --config and through
// --out after the statement.
func checkQueryFlags(t *testing.T, dir string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "billsnap.yml")
	os.WriteFile(cfg, []byte("out: "+dir+"\n"), 0o644)
	const q = "SELECT count(*) AS n FROM latest_customers"
	for _, args := range [][]string{{"query", "--config", cfg, q}, {"query", q, "--out", dir}} {
		var out, errb bytes.Buffer
		if code := e2etest.RunWith(context.Background(), args, &out, &errb, e2etest.NoEnv); code != job.ExitOK || out.String() != "n\n278\n" {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", args, code, out.String(), errb.String())
		}
	}
}

// A bad flag, on any command, is exit 2 with one line on stderr naming it
// and nothing on stdout, which is for results; no arguments at all print
// the usage to stderr.
func TestABadFlagIsOneLineOnStderr(t *testing.T) {
	t.Parallel()
	for _, name := range cli.CommandNames() {
		var out, errb bytes.Buffer
		code := e2etest.RunWith(context.Background(), []string{name, "--no-such-flag"}, &out, &errb, e2etest.NoEnv)
		want := "billsnap " + name + ": flag provided but not defined: -no-such-flag ('billsnap " + name + " --help' lists its flags)\n"
		if code != job.ExitUsage || out.Len() != 0 || errb.String() != want {
			t.Errorf("%s --no-such-flag: exit %d\nstdout %q\nstderr %q\nwant %q", name, code, out.String(), errb.String(), want)
		}
	}
	var out, errb bytes.Buffer
	if code := e2etest.RunWith(context.Background(), nil, &out, &errb, e2etest.NoEnv); code != job.ExitUsage || out.Len() != 0 || !strings.Contains(errb.String(), "Usage: billsnap <command>") {
		t.Errorf("no arguments: exit %d\nstdout %q\nstderr %q", code, out.String(), errb.String())
	}
}
