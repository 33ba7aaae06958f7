//go:build heavy

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/notify/notifytest"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/schedule"
)

// Every failure of a scheduled run shows within that run where on-call
// looks: /readyz (while /healthz stays 200), /metrics, the notifications,
// the log and status. The runs are the scheduler's own (cliEnv.scheduled,
// with the key read as the scheduler reads it), one fire at a time: a
// wrong key in BILLSNAP_API_KEY_FILE, the file corrected (no restart), a
// journal that cannot be written (a file where its folder goes, as a
// full or read-only disk refuses it), the journal back.
func TestOnCallSeesEveryFailureOfAScheduledRun(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 87, Customers: 30, Planted: 1}, "")
	hook := notifytest.StartReceiver(t, 0)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	keyFile := filepath.Join(dir, "key")
	const wrongKey = "wrong-key-5a5a5a5a5a"
	os.WriteFile(keyFile, []byte(wrongKey+"\n"), 0o600)
	conf := filepath.Join(dir, "billsnap.yml")
	os.WriteFile(conf, fmt.Appendf(nil, "out: %s\nprogress: none\nschedules:\n  - {name: quick, spec: '@every 2s', job: export}\n"+
		"notify:\n  webhooks:\n    - {name: oncall, url: %q, format: json, on: [failure]}\n", out, hook.URL), 0o600)
	vars := map[string]string{"BILLSNAP_API_KEY_FILE": keyFile, "BILLSNAP_BASE_URL": srv.BaseURL(), "BILLSNAP_FRONT_URL": srv.FrontURL()}
	var stdout, stderr syncbuf.Buffer
	env := newEnv(&stdout, &stderr, func(k string) string { return vars[k] })
	env.tune = oneThread
	cfg, err := env.loadConfig(conf)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	metrics := schedule.NewMetrics()
	ready := newReadiness(cfg, metrics, time.Now())
	stop, err := serveMetrics(env, "127.0.0.1:0", metrics, ready)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	_, addr, _ := strings.Cut(stderr.String(), "addr=")
	addr = strings.TrimSpace(addr)
	cf := &serviceFlags{}
	fire := func() {
		env.scheduled(ctx, cfg, func() (*extract.Secret, error) { return cf.secret(env) }, cfg.Schedules[0], metrics, ready)
	}
	expect := func(step string, ready int, readyWant string, metrics ...string) {
		t.Helper()
		if code, body := get(t, addr, "/healthz"); code != 200 {
			t.Errorf("%s: /healthz %d %q", step, code, body)
		}
		code, body := get(t, addr, "/readyz")
		if code != ready || !strings.Contains(body, readyWant) || strings.Count(body, "\n") != 1 {
			t.Errorf("%s: /readyz %d %q, want %d with %q on one line", step, code, body, ready, readyWant)
		}
		_, prom := get(t, addr, "/metrics")
		for _, m := range metrics {
			if !strings.Contains(prom, m+"\n") {
				t.Errorf("%s: /metrics has no %s", step, m)
			}
		}
	}
	failures := func(step string, n int, want string) {
		t.Helper()
		ev := notifytest.Decode[notify.Message](t, hook)
		if len(ev) != n || ev[n-1].Event != notify.Failure || !strings.Contains(ev[n-1].Error, want) {
			t.Errorf("%s: %d events, want %d, the last a failure with %q: %+v", step, len(ev), n, want, ev)
		}
	}

	fire()
	expect("wrong key", 503, "the last run of schedule quick failed (exit 1)", `billsnap_runs_total{job="export",status="failed"} 1`, `billsnap_last_run_exit_code{job="export"} 1`)
	failures("wrong key", 1, "the service refused the API key from BILLSNAP_API_KEY_FILE (the file "+keyFile+")")

	os.WriteFile(keyFile, []byte(exportKey+"\n"), 0o600)
	fire()
	expect("key corrected", 200, "ready", `billsnap_runs_total{job="export",status="ok"} 1`, `billsnap_last_run_exit_code{job="export"} 0`)

	runs := layout.Dir(out).Runs()
	os.Rename(runs, runs+".away")
	os.WriteFile(runs, nil, 0o644)
	fire()
	expect("journal unwritable", 503, "1 run(s) could not be recorded in the journal", `billsnap_runs_total{job="export",status="failed"} 1`, `billsnap_last_run_exit_code{job="export"} 1`)
	failures("journal unwritable", 2, "recording the run: journal: ")
	if !strings.Contains(stderr.String(), `msg="run failed" schedule=quick job=export`) {
		t.Errorf("no failed run in the log:\n%s", stderr.String())
	}

	os.Remove(runs)
	os.Rename(runs+".away", runs)
	fire()
	expect("journal back", 200, "ready", `billsnap_runs_total{job="export",status="failed"} 2`, `billsnap_runs_total{job="export",status="ok"} 2`)
	var status bytes.Buffer
	if code := runWith(ctx, []string{"status", "--config", conf}, &status, &status, noEnv); code != job.ExitOK ||
		!strings.Contains(status.String(), "recording the run: journal: ") ||
		!strings.Contains(status.String(), " — the service refused the API key from BILLSNAP_API_KEY_FILE (the file "+keyFile+"): check the key there") {
		t.Errorf("status: exit %d\n%s", code, status.String())
	}
	if err := ready.Check(time.Now().Add(time.Minute)); err == nil || !strings.Contains(err.Error(), "schedule quick is stale") {
		t.Errorf("a minute without a run: %v", err)
	}
	notifytest.SweepSecrets(t, out, stdout.String()+stderr.String()+status.String(), hook, nil, wrongKey, exportKey)
}
