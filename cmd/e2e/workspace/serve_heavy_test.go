//go:build heavy

package workspace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
)

// billsnap serve answers /api/findings?snapshot=latest with what billsnap
// reconcile --format json prints for the same snapshot, an assignment of
// the ledger included in both, and stops with exit 0 when interrupted.
func TestServeAnswersWhatReconcilePrints(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	_, lines, _ := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--format", "json")
	var one ledger.Assignment
	json.Unmarshal([]byte(strings.SplitN(lines, "\n", 2)[0]), &one)
	one.Assignee, one.Due = "erin", "2099-01-31"
	if _, err := ledger.New(layout.Dir(dir).Ledger(), time.Now).Assign(ledger.Actor{By: "dana"}, []ledger.Assignment{one}); err != nil {
		t.Fatal(err)
	}
	code, lines, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--format", "json")
	if code != job.ExitMaterial || !strings.Contains(strings.SplitN(lines, "\n", 2)[0], `"assignee":"erin","due":"2099-01-31","age_days":0,"overdue":false`) {
		t.Fatalf("reconcile: %d %s\n%s", code, stderr, lines)
	}
	var want []json.RawMessage
	sc := bufio.NewScanner(strings.NewReader(lines))
	for sc.Scan() {
		want = append(want, json.RawMessage(bytes.Clone(sc.Bytes())))
	}
	ctx, stop := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := cli.Run(ctx, []string{"serve", "--out", dir, "--listen", "127.0.0.1:0"}, io.Discard, pw, cli.Options{Tune: e2etest.OneThread})
		pw.Close()
		done <- code
	}()
	var logs syncbuf.Buffer
	base := e2etest.ReadURL(t, pr, &logs)
	resp, err := http.Get(base + "api/findings?snapshot=latest")
	if err != nil {
		t.Fatal(err)
	}
	var got []json.RawMessage
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil || len(got) != len(want) || len(want) < 14 {
		t.Fatalf("/api/findings: %d objects (%v), reconcile printed %d", len(got), err, len(want))
	}
	for i := range want {
		if !jsonEqual(got[i], want[i]) {
			t.Fatalf("object %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	stop()
	if code := <-done; code != job.ExitOK {
		t.Fatalf("serve interrupted: exit %d\n%s", code, logs.String())
	}
}
