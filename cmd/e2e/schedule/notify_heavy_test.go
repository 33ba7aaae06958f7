//go:build heavy

package schedule

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/notify/notifytest"
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
