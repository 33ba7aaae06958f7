//go:build heavy

package workspace

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger/ledgertest"
)

// serve stops on SIGTERM within 10 s after requests that failed on a
// ledger made invalid under it, each of which once panicked holding the
// read model.
func TestServeStopsOnSIGTERMAfterFailedRequests(t *testing.T) {
	t.Parallel()
	_, dir := e2etest.Reconciled(t, e2etest.ExportedOptions)
	cmd := exec.Command(e2etest.Binary(t), "serve", "--out", dir, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "BILLSNAP_OUT=")
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); pw.Close() }()
	var logs syncbuf.Buffer
	base := e2etest.ReadURL(t, pr, &logs)
	ledgertest.Append(t, layout.Dir(dir).Ledger(), `{"seq":1,"at":"2026-11-25T12:00:00Z","by":"m","action":"waive"}`)
	for _, p := range []string{"", "findings", "findings.csv", "api/findings", "api/waivers", "waivers", "audit"} {
		resp, err := http.Get(base + p)
		if err != nil { // a handler that panicked: net/http drops the connection
			t.Errorf("GET /%s: %v", p, err)
			continue
		}
		resp.Body.Close()
		if p == "api/waivers" && resp.StatusCode == http.StatusOK {
			t.Errorf("GET /%s on a malformed ledger: 200", p)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve still running 10 s after SIGTERM\n%s", logs.String())
	}
}
