package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/sandbox"
)

// billsnap ledger verify passes a ledger as written and names the one
// line edited afterwards, exit 1; an old ledger is chained by ledger chain.
func TestLedgerVerifyNamesTheEditedLine(t *testing.T) {
	t.Parallel()
	srv, dir := exported(t, sandbox.Options{Seed: 76, Customers: 12, Planted: 1})
	path := layout.Dir(dir).Ledger()
	old := `{"seq":1,"at":"2026-10-01T09:00:00Z","by":"ann","action":"waive","waiver":{"id":"W1","rule":"r","entity_id":"e1","reason":"x","owner":"o","expires":"2026-12-31"}}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, srv, "ledger", "verify", "--out", dir); code != job.ExitFailure || !strings.Contains(stderr, "line 1 (seq 1)") {
		t.Fatalf("verify of an unchained ledger: exit %d: %s", code, stderr)
	}
	if code, out, stderr := cli(t, srv, "ledger", "chain", "--out", dir); code != job.ExitOK || !strings.Contains(out, "1 line chained") {
		t.Fatalf("ledger chain: exit %d: %s %s", code, out, stderr)
	}
	// A ledger written before the chain is chained as serve starts, too.
	os.WriteFile(path, []byte(old+strings.Replace(old, `"seq":1`, `"seq":2`, 1)), 0o644)
	os.Remove(path + ".unchained")
	_, stop := serveIn(t, "--out", dir, "--listen", "127.0.0.1:0")
	stop()
	if code, out, stderr := cli(t, srv, "ledger", "verify", "--out", dir); code != job.ExitOK || !strings.Contains(out, "2 entries") {
		t.Fatalf("verify after serve started: exit %d: %s %s", code, out, stderr)
	}
	os.WriteFile(path, []byte(old), 0o644)
	l := ledger.New(path, time.Now)
	for _, id := range []string{"e2", "e3"} {
		if _, err := l.Waive(ledger.Actor{By: "bob"}, ledger.Waiver{Rule: "r", EntityID: id, Reason: "x", Owner: "o", Expires: "2026-12-31"}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := cli(t, srv, "ledger", "verify", "--out", dir)
	if code != job.ExitOK || !strings.Contains(out, "3 entries, the chain holds") {
		t.Fatalf("verify: exit %d: %s %s", code, out, stderr)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"entity_id":"e2"`), []byte(`"entity_id":"e9"`), 1), 0o644)
	code, _, stderr = cli(t, srv, "ledger", "verify", "--out", dir)
	if code != job.ExitFailure || !strings.Contains(stderr, "line 2 (seq 2) does not fit the chain") {
		t.Fatalf("verify of an edited line 2: exit %d: %s", code, stderr)
	}
}
