//go:build heavy

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/notify/notifytest"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/hostile"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// No output line is ever longer than 4 KB (issue 62, item 3): a field
// name of a megabyte, a million-digit amount (in an assumed field, then
// in a spec field, which is refused), and an error whose message is a
// megabyte, from a hostile service, leave no longer line in stderr
// (errors and logs), stdout, the journal, the deliveries' record, status
// (table and JSON) or any webhook's body (json and Slack).
func TestNoOutputLineIsLongerThan4KB(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 8}, "")
	huge := strings.Repeat("F", 1<<20)
	digits := strings.Repeat("9", 1_000_000)
	var named, amount, charge, refusal hostile.Attacks
	refusal.Refusal = strings.Repeat("<b>refused</b> ", 1<<16)
	named.Member.ID, named.Member.Name, named.Member.Value = sb.Dataset().Customers[0].ID, huge, huge
	amount.Number.ID, amount.Number.Field, amount.Number.Value = sb.Dataset().Invoices[0].ID, "TotalAmount", digits
	charge.Number.ID, charge.Number.Field, charge.Number.Value = sb.Dataset().Charges[0].ID, "Amount", digits
	hookJSON, hookSlack := notifytest.StartReceiver(t, 0), notifytest.StartReceiver(t, 0)
	dir := t.TempDir()
	conf := filepath.Join(t.TempDir(), "c.yml")
	os.WriteFile(conf, fmt.Appendf(nil, "out: %s\nnotify:\n  webhooks:\n"+
		"    - {name: finance, url: %q, format: json, on: [material, failure]}\n"+
		"    - {name: chat, url: %q, format: slack, on: [material, failure]}\n", dir, hookJSON.URL, hookSlack.URL), 0o644)

	var outputs []string
	for _, a := range []hostile.Attacks{named, amount, charge, refusal} {
		hs := hostile.Start(t, sb, a)
		code, stdout, stderr := cliAt(t, hs.BaseURL(), "run", "--config", conf, "--progress", "none")
		if a.Number.Field == "Amount" && (code != job.ExitFailure || !strings.Contains(stderr, "(1000000 bytes)")) {
			t.Errorf("a million-digit amount of a charge (a spec field): exit %d, want 1 stating its length\n%.3000s", code, stderr)
		}
		outputs = append(outputs, "stdout of run", stdout, "stderr of run", stderr)
	}
	for _, args := range [][]string{{"status"}, {"status", "--format", "json"}} {
		code, stdout, stderr := cliAt(t, sb.BaseURL(), append(args, "--config", conf)...)
		if code != job.ExitOK {
			t.Errorf("%s: exit %d: %.2000s", args, code, stderr)
		}
		outputs = append(outputs, strings.Join(args, " "), stdout, strings.Join(args, " ")+" stderr", stderr)
	}
	files, _ := filepath.Glob(filepath.Join(layout.Dir(dir).Runs(), "*.json"))
	files = append(files, layout.Dir(dir).Notifications())
	for _, f := range files {
		b, _ := os.ReadFile(f)
		outputs = append(outputs, f, string(b))
	}
	for i, b := range append(hookJSON.Bodies(), hookSlack.Bodies()...) {
		outputs = append(outputs, fmt.Sprintf("webhook body %d", i), string(b))
	}
	if len(hookJSON.Bodies()) == 0 {
		t.Error("the failure was not posted")
	}
	for i := 0; i < len(outputs); i += 2 {
		for n, line := range strings.Split(outputs[i+1], "\n") {
			if len(line) > 4096 {
				t.Errorf("%s, line %d: %d bytes: %.200s…", outputs[i], n+1, len(line), line)
			}
		}
	}
}
