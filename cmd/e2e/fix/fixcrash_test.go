//go:build heavy

package fix

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/fix"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
)

// An apply killed (SIGKILL) just after it recorded its second write as
// sending, and before it sent it, leaves a record of what was sent; the
// next apply reads that write back, finds it not made, sends it, and sends
// the rest; the first write is not sent again.
func TestAnApplyKilledMidwayIsCompletedByTheNext(t *testing.T) {
	t.Parallel()
	bin := e2etest.BinaryWithTags(t, "crashpoints")
	srv, dir := e2etest.Reconciled(t, sandbox.Options{Seed: 80, Customers: 30, Planted: 6})
	planFile, plan := planned(t, srv, dir)
	actions := strings.Count(plan, `"op": "markpaid"`)
	if actions < 3 {
		t.Fatalf("the plan has %d actions; the test wants 3 or more", actions)
	}
	proxy := &writeProxy{target: srv.URL}
	ps := newProxyServer(t, proxy)
	cmd := exec.Command(bin, "fix", "apply", "--out", dir, "--plan", planFile)
	cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY="+e2etest.ExportKey, "BILLSNAP_BASE_URL="+ps, "BILLSNAP_FRONT_URL="+ps,
		"BILLSNAP_OUT=", "BILLSNAP_CRASH_AT=fix.sending#2")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the apply was not killed: %v\n%s", err, out)
	}
	events := recordOf(t, dir)
	if n := len(events); n != 3 || events[0].Event != fix.EvSending || events[1].Outcome != fix.Done || events[2].Event != fix.EvSending {
		t.Fatalf("the record of the killed apply (want sending, answered done, sending): %+v", events)
	}
	if proxy.puts.Load() != 1 {
		t.Fatalf("%d writes reached the service before the kill, want 1", proxy.puts.Load())
	}
	via := &sandbox.Server{Sandbox: srv.Sandbox, URL: ps}
	code, stdout, stderr := e2etest.CLI(t, via, "fix", "apply", "--out", dir, "--plan", planFile)
	if code != job.ExitOK {
		t.Fatalf("the next apply: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := proxy.puts.Load(); got != int64(actions) {
		t.Fatalf("%d writes reached the service for %d actions", got, actions)
	}
	var readNotMade int
	for _, e := range recordOf(t, dir)[3:] {
		if e.Event == fix.EvReadBack && e.Outcome == fix.NotMade {
			readNotMade++
		}
	}
	if readNotMade != 1 {
		t.Errorf("the next apply read back %d writes as not made, want the one the kill cut off", readNotMade)
	}
}
