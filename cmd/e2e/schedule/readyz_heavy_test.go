//go:build heavy

package schedule

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
)

// billsnap schedule itself: with a wrong key in BILLSNAP_API_KEY_FILE
// /readyz answers 503 while /healthz answers 200 and the failed runs are
// counted; once the file holds the right key, /readyz answers 200 with no
// restart.
func TestScheduleReadsTheKeyFileAtEveryRun(t *testing.T) {
	t.Parallel()
	srv, out := e2etest.Exported(t, e2etest.ExportedOptions)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte("wrong-key-6b6b6b6b6b\n"), 0o600)
	cfg := filepath.Join(dir, "billsnap.yml")
	os.WriteFile(cfg, fmt.Appendf(nil, "out: %s\nprogress: none\nschedules:\n  - {name: quick, spec: '@every 1s', job: export}\n", out), 0o600)
	cmd := exec.Command(e2etest.Binary(t), "schedule", "--config", cfg, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY=", "BILLSNAP_API_KEY_FILE="+keyFile, "BILLSNAP_BASE_URL="+srv.BaseURL(), "BILLSNAP_FRONT_URL="+srv.FrontURL())
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	logs := e2etest.Collect(stderr)
	logs.WaitFor(t, "run failed", 2, 60*time.Second)
	_, addr, _ := strings.Cut(logs.String(), "addr=")
	addr, _, _ = strings.Cut(addr, "\n")
	if code, body := get(t, addr, "/readyz"); code != 503 || !strings.Contains(body, "the last run of schedule quick failed (exit 1)") {
		t.Errorf("wrong key: /readyz %d %q", code, body)
	}
	if code, _ := get(t, addr, "/healthz"); code != 200 {
		t.Errorf("wrong key: /healthz %d", code)
	}
	if _, prom := get(t, addr, "/metrics"); !regexp.MustCompile(`billsnap_runs_total\{job="export",status="failed"\} [2-9]`).MatchString(prom) {
		t.Errorf("wrong key: the failed runs are not counted:\n%s", prom)
	}
	os.WriteFile(keyFile, []byte(e2etest.ExportKey+"\n"), 0o600)
	logs.WaitFor(t, "run ok", 1, 60*time.Second)
	if code, body := get(t, addr, "/readyz"); code != 200 {
		t.Errorf("key corrected: /readyz %d %q", code, body)
	}
	if code := e2etest.Stop(t, cmd); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
}
