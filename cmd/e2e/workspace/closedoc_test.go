//go:build heavy

package workspace

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
)

// closeDocScript is the shell blocks of docs/close.md, in order, with the
// sandbox's and the workspace's ports moved to free ones.
func closeDocScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/close.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	if len(blocks) < 5 {
		t.Fatalf("docs/close.md has %d shell blocks", len(blocks))
	}
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, m := range blocks {
		script.WriteString(m[1])
	}
	s := script.String()
	for _, port := range []string{"8081", "8080"} {
		s = strings.ReplaceAll(s, "127.0.0.1:"+port, "127.0.0.1:"+freePort(t))
	}
	return s
}

// freePort is a port on loopback that nothing listens on.
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// The close as docs/close.md tells it, run as it stands in one shell with
// billsnap on PATH: a month exported, an explained finding waived, the
// accountant refused the sign-off, the controller signing off and closing,
// a late waiver listed as a post-close adjustment, the report's Closed
// part, the ledger's chain, the evidence pack verified with the store and
// by the zip alone, and the reopening.
func TestTheCloseRunsAsDocumented(t *testing.T) {
	bin := e2etest.BinaryWithTags(t, "")
	sh := exec.Command("bash", "-c", closeDocScript(t))
	sh.Dir = t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BILLSNAP_") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	sh.Env = append(env, "PATH="+filepath.Dir(bin)+":/usr/bin:/bin")
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	done := make(chan struct{})
	timer := time.AfterFunc(4*time.Minute, func() { syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) })
	defer func() { timer.Stop(); close(done) }()
	out, err := sh.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("the steps of docs/close.md: %v\n%s", err, text)
	}
	for _, want := range []string{
		"erin signs off: 403",
		`"by": "dana@example.com"`,
		`"closed": true`,
		`"post_close": "C`,
		"## Closed",
		"Post-close adjustment",
		"the chain holds",
		"intact:",
		"the store " + filepath.Join(sh.Dir, "close-store") + " agrees",
		"note: no store given",
		"the bag's manifests check",
		`"reason": "credit note CN-117 arrived late"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the steps' output has no %q", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", text)
	}
}
