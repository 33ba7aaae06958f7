package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/internal/golden"
)

// transcript is one command line whose exit code, stdout and stderr are
// pinned in testdata/cli/<name>.txt (go test -update rewrites them).
type transcript struct {
	name string
	args []string
	env  map[string]string
}

// transcripts are every command's --help and the usage errors a user
// meets first. $TMP in an argument is a fresh empty directory.
func transcripts() []transcript {
	key := map[string]string{"BILLSNAP_API_KEY": "transcript-key"}
	ts := []transcript{
		{name: "help", args: []string{"--help"}},
		{name: "no-arguments", args: nil},
		{name: "unknown-command", args: []string{"exprot"}},
		{name: "report-bad-flag", args: []string{"report", "--concurrency", "4"}},
		{name: "status-service-flag", args: []string{"status", "--api-key-file", "/nope"}},
		{name: "reconcile-out-typo", args: []string{"reconcile", "--out", "$TMP/typo"}},
		{name: "query-two-arguments", args: []string{"query", "--out", "$TMP", "select 1", "select 2"}},
		{name: "check-config-ok", args: []string{"check-config", "--offline", "--config", "testdata/cli/ok.yml"}, env: key},
		{name: "check-config-bad-tokens-file", args: []string{"check-config", "--config", "testdata/cli/workspace-tokens.yml"}, env: key},
		{name: "check-config-header-no-proxies", args: []string{"check-config", "--config", "testdata/cli/workspace-header.yml"}, env: key},
		{name: "check-config-missing-waivers", args: []string{"check-config", "--config", "testdata/cli/missing-waivers.yml"}, env: key},
		{name: "check-config-missing-rules-dir", args: []string{"check-config", "--config", "testdata/cli/missing-rules-dir.yml"}, env: key},
		{name: "check-config-unknown-materiality-rule", args: []string{"check-config", "--config", "testdata/cli/unknown-materiality-rule.yml"}, env: key},
		{name: "reconcile-unknown-materiality-rule", args: []string{"reconcile", "--config", "testdata/cli/unknown-materiality-rule.yml", "--out", "$TMP"}},
		{name: "check-config-no-key", args: []string{"check-config", "--config", "testdata/cli/ok.yml"}},
		{name: "fix-plan-help", args: []string{"fix", "plan", "--help"}},
		{name: "fix-apply-help", args: []string{"fix", "apply", "--help"}},
		{name: "fix-no-subcommand", args: []string{"fix"}},
		{name: "fix-apply-no-plan", args: []string{"fix", "apply", "--out", "$TMP"}},
		{name: "serve-not-loopback", args: []string{"serve", "--listen", "0.0.0.0:18080", "--out", "$TMP"}},
		{name: "check-config-notify-plain-http", args: []string{"check-config", "--config", "testdata/cli/notify-plain-http.yml"}, env: key},
		{name: "notify-test-no-target", args: []string{"notify", "test", "--out", "$TMP"}},
		{name: "lake-ddl-help", args: []string{"lake", "ddl", "--help"}},
		{name: "lake-ddl-no-url", args: []string{"lake", "ddl", "--engine", "trino", "--out", "$TMP"}},
		{name: "lake-ddl-no-engine", args: []string{"lake", "ddl", "--engine", "presto", "--parquet-url", "file:///tmp/lake", "--out", "$TMP"}},
		{name: "lake-ddl-no-catalog", args: []string{"lake", "ddl", "--engine", "trino", "--parquet-url", "s3://lake/billing", "--out", "$TMP"}},
		{name: "serve-short-token", args: []string{"serve", "--listen", "0.0.0.0:18080", "--token-file", "testdata/cli/short.token", "--out", "$TMP"}},
	}
	for _, name := range cli.CommandNames() {
		ts = append(ts, transcript{name: name + "-help", args: []string{name, "--help"}})
	}
	return ts
}

// Every command's help and the first usage errors read as pinned: a
// changed flag, text or exit code shows as a diff.
func TestTranscripts(t *testing.T) {
	t.Parallel()
	for _, tr := range transcripts() {
		t.Run(tr.name, func(t *testing.T) {
			tmp := t.TempDir()
			args := make([]string, len(tr.args))
			for i, a := range tr.args {
				args[i] = strings.ReplaceAll(a, "$TMP", tmp)
			}
			var out, errb bytes.Buffer
			code := e2etest.RunWith(context.Background(), args, &out, &errb, func(k string) string { return tr.env[k] })
			got := fmt.Sprintf("$ billsnap %s\n[exit %d]\n[stdout]\n%s[stderr]\n%s", shellQuote(tr.args), code, out.String(), errb.String())
			golden.Check(t, filepath.Join("cli", tr.name+".txt"), []byte(strings.ReplaceAll(got, tmp, "$TMP")))
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("%s left %d entries in $TMP: a usage error must create nothing", tr.name, len(entries))
			}
		})
	}
}

// shellQuote joins args as a shell would need them typed.
func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " '\";*") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
