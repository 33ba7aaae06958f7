package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// A mistyped command, subcommand or flag is one line on stderr that
// suggests the nearest one when one is near, nothing on stdout, exit 2;
// a word near none says where the list is, in one line too.
func TestAMistypeSuggestsTheNearest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"exprot"}, `billsnap: unknown command "exprot"; did you mean "export"? ('billsnap --help' lists the commands)`},
		{[]string{"chek-config"}, `did you mean "check-config"?`},
		{[]string{"frobnicate"}, `billsnap: unknown command "frobnicate" ('billsnap --help' lists the commands)`},
		{[]string{"export", "--concurency", "4"}, `flag provided but not defined: -concurency; did you mean --concurrency? ('billsnap export --help' lists its flags)`},
		{[]string{"status", "-fromat", "json"}, `did you mean --format?`},
		{[]string{"evidence", "-0", "x.zip"}, `did you mean -o?`},
		{[]string{"fix", "plna"}, `unknown subcommand "plna"; did you mean "plan"? (want plan or apply)`},
		{[]string{"ledger", "verify", "--otu", "x"}, `did you mean --out?`},
		{[]string{"report", "--concurrency", "4"}, `flag provided but not defined: -concurrency ('billsnap report --help' lists its flags)`},
	} {
		var stdout, stderr bytes.Buffer
		code := e2etest.RunWith(context.Background(), c.args, &stdout, &stderr, e2etest.NoEnv)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != job.ExitUsage || stdout.Len() != 0 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing on stdout, one line with %q", c.args, code, stdout.String(), stderr.String(), c.want)
		}
	}
}
