package workspace

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/ledger/ledgertest"
	"github.com/billsnap/billsnap/sandbox"
)

// billsnap ledger verify passes a ledger as written and names the one
// line edited afterwards, exit 1; an old ledger is chained by ledger chain
// alone (serve does not), and ledger chain refuses a chained one, exit 1.
func TestLedgerVerifyNamesTheEditedLine(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	path := layout.Dir(dir).Ledger()
	old := `{"seq":1,"at":"2026-10-01T09:00:00Z","by":"ann","action":"waive","waiver":{"id":"W1","rule":"r","entity_id":"e1","reason":"x","owner":"o","expires":"2026-12-31"}}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := e2etest.CLI(t, srv, "ledger", "verify", "--out", dir); code != job.ExitFailure || !strings.Contains(stderr, "line 1 (seq 1)") {
		t.Fatalf("verify of an unchained ledger: exit %d: %s", code, stderr)
	}
	_, stop := serveIn(t, "--out", dir, "--listen", "127.0.0.1:0")
	stop()
	if b, _ := os.ReadFile(path); string(b) != old {
		t.Fatalf("serve changed an unchained ledger: %s", b)
	}
	if code, out, stderr := e2etest.CLI(t, srv, "ledger", "chain", "--out", dir); code != job.ExitOK || !strings.Contains(out, "1 line chained") {
		t.Fatalf("ledger chain: exit %d: %s %s", code, out, stderr)
	}
	if code, _, stderr := e2etest.CLI(t, srv, "ledger", "chain", "--out", dir); code != job.ExitFailure || !strings.Contains(stderr, "carries chain fields already") {
		t.Fatalf("ledger chain of a chained ledger: exit %d: %s", code, stderr)
	}
	l := ledger.New(path, time.Now)
	for _, id := range []string{"e2", "e3"} {
		if _, err := l.Waive(ledger.Actor{By: "bob"}, ledger.Waiver{Rule: "r", EntityID: id, Reason: "x", Owner: "o", Expires: "2026-12-31"}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := e2etest.CLI(t, srv, "ledger", "verify", "--out", dir)
	if code != job.ExitOK || !strings.Contains(out, "3 entries, the chain holds") || !strings.Contains(out, "(seq 3) reached") {
		t.Fatalf("verify: exit %d: %s %s", code, out, stderr)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"entity_id":"e2"`), []byte(`"entity_id":"e9"`), 1), 0o644)
	code, _, stderr = e2etest.CLI(t, srv, "ledger", "verify", "--out", dir)
	if code != job.ExitFailure || !strings.Contains(stderr, "line 2 (seq 2) does not fit the chain") {
		t.Fatalf("verify of an edited line 2: exit %d: %s", code, stderr)
	}
	os.WriteFile(path, b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1], 0o644)
	code, _, stderr = e2etest.CLI(t, srv, "ledger", "verify", "--out", dir)
	if code != job.ExitFailure || !strings.Contains(stderr, "the ledger ends at seq 2 (line 2), and its head recorded at") {
		t.Fatalf("verify of a ledger without its last line: exit %d: %s", code, stderr)
	}
}

// malformedStore is an exported store whose ledger holds a waiver and
// then a chained line that is not a valid entry: a waive without its
// waiver.
func malformedStore(t *testing.T) (*sandbox.Server, string) {
	t.Helper()
	srv, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	path := layout.Dir(dir).Ledger()
	if _, err := ledger.New(path, time.Now).Waive(ledger.Actor{By: "bob"}, ledger.Waiver{Rule: "paid_without_payment", EntityID: "e1",
		Reason: "x", Owner: "o", Expires: "2099-12-31"}); err != nil {
		t.Fatal(err)
	}
	ledgertest.Append(t, path, `{"seq":2,"at":"2026-11-25T12:00:00Z","by":"m","action":"waive"}`)
	return srv, dir
}

// child runs the real binary with args over srv and gives its exit code
// and stderr.
func child(t *testing.T, srv *sandbox.Server, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(e2etest.Binary(t), args...)
	cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY="+e2etest.ExportKey, "BILLSNAP_BASE_URL="+srv.BaseURL(),
		"BILLSNAP_FRONT_URL="+srv.FrontURL(), "BILLSNAP_OUT=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// A chained line that is not a valid entry is exit 1 from ledger verify,
// naming it, and a failure naming it from every reader of the ledger,
// never a panic.
func TestAMalformedLineIsAFailureNeverAPanic(t *testing.T) {
	t.Parallel()
	srv, dir := malformedStore(t)
	const named = "line 2 (seq 2) is not a valid entry: a waive entry without its waiver"
	if code, stderr := child(t, srv, "ledger", "verify", "--out", dir); code != job.ExitFailure || !strings.Contains(stderr, named) {
		t.Errorf("ledger verify: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{{"reconcile"}, {"report"}, {"evidence", "--period", "2026-10"}} {
		code, stderr := child(t, srv, append(args, "--out", dir)...)
		if code == job.ExitOK || strings.Contains(stderr, "panic") || !strings.Contains(stderr, named) {
			t.Errorf("%s: exit %d: %s", args[0], code, stderr)
		}
	}
}
