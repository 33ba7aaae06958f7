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
	"github.com/billsnap/billsnap/notify/notifytest"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

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
