package fix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// hostileIDs would move a write to another path, or add a query, if they
// reached the URL path as they are.
var hostileIDs = []string{"../../invoices/00000000-0000-4000-8000-000000000000/markpaid", "x?y=1", "a/b", "00000000-0000-4000-8000-00000000000%2F"}

// An action whose invoice or reference ID is not a GUID is refused by
// apply, dry run or not, before anything is sent: the sandbox, over HTTP,
// receives no request, and the error names the action and the ID.
func TestApplySendsOnlyGUIDsInThePath(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 5}, "")
	c, err := extract.NewClient(extract.Options{BaseURL: srv.BaseURL(), FrontURL: srv.FrontURL(), Secret: extract.NewSecret(sandboxtest.Key),
		Concurrency: 2, Timeout: 10 * time.Second, Retry: extract.Retry{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	a := &Applier{Client: c, BaseURL: srv.BaseURL(), Record: NewRecord(filepath.Join(t.TempDir(), "fixes.jsonl"), time.Now), Out: &out,
		ReadBack: func(context.Context, Action) (bool, error) { return false, nil }}
	q := int64(1)
	for _, id := range hostileIDs {
		for _, act := range []Action{{Op: OpMarkPaid, InvoiceID: id, PaymentDate: "2026-11-01T00:00:00Z"}, {Op: OpSetAmount, ReferenceID: id, Quantity: &q}} {
			p := Plan{Snapshot: "s", Actions: []Action{act}}
			p.Digest = p.Sum()
			before := srv.Requests()
			_, err := a.Apply(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), "action 1 ("+act.Op+")") || !strings.Contains(err.Error(), "not a GUID") {
				t.Errorf("%s %q: error %v, want the action refused", act.Op, id, err)
			}
			if err := a.DryRun(p); err == nil || strings.Contains(out.String(), id) {
				t.Errorf("%s %q: the dry run printed %q, error %v", act.Op, id, out.String(), err)
			}
			if n := srv.Requests() - before; n != 0 {
				t.Errorf("%s %q: %d requests sent", act.Op, id, n)
			}
		}
	}
}

// Read refuses a plan, edited by hand, whose IDs are not GUIDs, naming
// the file, the action and the ID.
func TestReadRefusesAnIDThatIsNotAGUID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.json")
	for _, body := range []string{
		`{"snapshot_id":"s","actions":[{"op":"markpaid","invoice_id":"../x","payment_date":"2026-11-01T00:00:00Z","finding":{}}]}`,
		`{"snapshot_id":"s","actions":[{"op":"setamount","reference_id":"a/b","quantity":1,"finding":{}}]}`,
		`{"snapshot_id":"s","actions":[{"op":"delete","reference_id":"00000000-0000-4000-8000-000000000000","finding":{}}]}`,
	} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), path+": action 1") {
			t.Errorf("%s: error %v, want it refused naming the file and the action", body, err)
		}
	}
}
