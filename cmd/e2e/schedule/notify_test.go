package schedule

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/notify/notifytest"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A json webhook on [material, failure]: a reconciliation with material
// findings (of the shared export) posts once (event material); the same
// reconciliation again posts nothing; a run with a wrong API key posts one
// failure with exit code 1. A second target that fails (404) leaves the
// exit codes as they are. No key is in any payload, the store or the
// output.
func TestAWebhookHearsOfMaterialOnceAndOfAFailure(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	hook, broken := notifytest.StartReceiver(t, 0), notifytest.StartReceiver(t, http.StatusNotFound)
	etc := t.TempDir() // where the configuration is
	conf := filepath.Join(etc, "c.yml")
	os.WriteFile(conf, fmt.Appendf(nil, "notify:\n  webhooks:\n    - {name: finance, url: %q, format: json, on: [material, failure]}\n"+
		"    - {name: broken, url: %q, format: json, on: [material, failure]}\n", hook.URL, broken.URL), 0o644)
	var output strings.Builder
	for range 2 {
		code, stdout, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--config", conf)
		output.WriteString(stdout + stderr)
		if code != job.ExitMaterial { // a target that fails changes nothing
			t.Fatalf("reconcile: exit %d, want 3 (material)\n%s", code, stderr)
		}
	}
	ev := notifytest.Decode[notify.Message](t, hook)
	if len(ev) != 1 || ev[0].Event != notify.Material || ev[0].ExitCode != job.ExitMaterial || len(ev[0].Rules) == 0 || len(ev[0].TopFindings) == 0 {
		t.Fatalf("after two reconciliations: %+v, want one material event", ev)
	}
	wrong := filepath.Join(etc, "wrong.key")
	os.WriteFile(wrong, []byte("wrong-key-0123456789"), 0o600)
	code, stdout, stderr := e2etest.CLI(t, srv, "run", "--out", dir, "--config", conf, "--progress", "none", "--api-key-file", wrong)
	output.WriteString(stdout + stderr)
	if code != job.ExitFailure {
		t.Fatalf("run with a wrong key: exit %d\n%s", code, stderr)
	}
	ev = notifytest.Decode[notify.Message](t, hook)
	if len(ev) != 2 || ev[1].Event != notify.Failure || ev[1].ExitCode != job.ExitFailure || ev[1].Error == "" {
		t.Fatalf("after a run with a wrong key: %+v", ev[1:])
	}
	prom, _ := os.ReadFile(filepath.Join(dir, "billsnap.prom"))
	for _, want := range []string{`billsnap_notifications_total{event="material",result="sent",target="finance"} 1`,
		`billsnap_notifications_total{event="failure",result="sent",target="finance"} 1`} {
		if !strings.Contains(string(prom), want) {
			t.Errorf("the metrics file has no %s", want)
		}
	}
	notifytest.SweepSecrets(t, dir, output.String(), hook, nil, sandboxtest.Key, "wrong-key-0123456789", "secret-token")
}

// billsnap notify test reports each target's result: a json webhook, a
// Slack one, email over STARTTLS, and a webhook that answers 404 (exit 1).
func TestNotifyTestReportsEachTarget(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 88, Customers: 5}, "")
	good, gone := notifytest.StartReceiver(t, 0), notifytest.StartReceiver(t, http.StatusNotFound)
	mail := notifytest.StartSMTP(t, false, "billsnap", "smtp-Pa55word")
	t.Setenv("BILLSNAP_TEST_SMTP_PASSWORD", mail.Pass)
	dir, etc := t.TempDir(), t.TempDir()
	conf := filepath.Join(etc, "c.yml")
	os.WriteFile(conf, fmt.Appendf(nil, `notify:
  webhooks:
    - {name: ops, url: %q, format: json, on: [failure]}
    - {name: chat, url: %q, format: slack, on: [material]}
    - {name: old, url: %q, format: teams, on: [material]}
  email: {host: %s, port: %d, ca_file: %s, user: %s, password_env: BILLSNAP_TEST_SMTP_PASSWORD, from: billsnap@example.com, to: [finance@example.com], on: [material]}
`, good.URL, good.URL, gone.URL, mail.Host, mail.Port, mail.CAFile, mail.User), 0o644)
	code, stdout, stderr := e2etest.CLI(t, srv, "notify", "test", "--out", dir, "--config", conf)
	want := []string{`(?m)^ops\s+ok$`, `(?m)^chat\s+ok$`, `(?m)^old\s+failed: POST: answered 404 Not Found$`, `(?m)^email\s+ok$`}
	for _, w := range want {
		if !regexp.MustCompile(w).MatchString(stdout) {
			t.Errorf("no line %s in:\n%s", w, stdout)
		}
	}
	if code != job.ExitFailure || len(good.Bodies()) != 2 || len(mail.Mails()) != 1 {
		t.Errorf("exit %d (want 1: a target failed), %d posts, %d mails\n%s", code, len(good.Bodies()), len(mail.Mails()), stderr)
	}
	_, status, _ := e2etest.CLI(t, srv, "status", "--out", dir, "--config", conf)
	if !regexp.MustCompile(`(?m)^  old\s+\S+ \S+\s+test\s+failed\s+\S+ \S+\s+POST: answered 404`).MatchString(status) {
		t.Errorf("status does not show the failing target:\n%s", status)
	}
	notifytest.SweepSecrets(t, dir, stdout+stderr+status, good, mail, mail.Pass, "secret-token", sandboxtest.Key)
}

// The setup docs/notifications.md shows (Slack by url_file, email over
// STARTTLS with a password from the environment) works: its block, pointed
// at the in-process servers, passes check-config and notify test.
func TestTheDocumentedSetupWorks(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 89, Customers: 5}, "")
	slack := notifytest.StartReceiver(t, 0)
	mail := notifytest.StartSMTP(t, false, "billsnap", "smtp-Pa55word")
	t.Setenv("BILLSNAP_SMTP_PASSWORD", mail.Pass)
	dir := t.TempDir()
	doc, err := os.ReadFile("../../../docs/notifications.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)<!-- tried:[^>]*-->\n```yaml\n(.*?)```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("docs/notifications.md has no tried yaml block")
	}
	urlFile := filepath.Join(dir, "slack-url")
	os.WriteFile(urlFile, []byte(slack.URL+"\n"), 0o600)
	yml := strings.NewReplacer("/etc/billsnap/slack-webhook-url", urlFile, "smtp.example.com", mail.Host, "port: 587", fmt.Sprintf("port: %d", mail.Port),
		`ca_file: ""`, "ca_file: "+mail.CAFile).Replace(string(block[1]))
	conf := filepath.Join(dir, "c.yml")
	os.WriteFile(conf, []byte(yml), 0o644)
	if code, _, stderr := e2etest.CLI(t, srv, "check-config", "--out", dir, "--config", conf); code != job.ExitOK {
		t.Fatalf("check-config of the documented setup: %d\n%s", code, stderr)
	}
	code, stdout, stderr := e2etest.CLI(t, srv, "notify", "test", "--out", dir, "--config", conf)
	if code != job.ExitOK || !regexp.MustCompile(`(?m)^finance-slack\s+ok$`).MatchString(stdout) || !regexp.MustCompile(`(?m)^email\s+ok$`).MatchString(stdout) {
		t.Fatalf("notify test of the documented setup: exit %d\n%s%s", code, stdout, stderr)
	}
	if b := slack.Bodies(); len(b) != 1 || !strings.HasPrefix(string(b[0]), `{"text":"billsnap: a test message`) {
		t.Errorf("slack got %q", b)
	}
}
