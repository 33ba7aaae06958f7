package fix

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// applierAt is an Applier of the sandbox at url, its record in a new
// directory, reading back from the sandbox's back office.
func applierAt(t *testing.T, srv *sandbox.Server, url string) (*Applier, *bytes.Buffer) {
	t.Helper()
	c, err := extract.NewClient(extract.Options{BaseURL: url, FrontURL: url, Secret: extract.NewSecret(sandboxtest.Key),
		Concurrency: 2, Timeout: 10 * time.Second, Retry: extract.Retry{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	return &Applier{Client: c, BaseURL: url, Record: NewRecord(filepath.Join(t.TempDir(), "fixes.jsonl"), time.Now), Out: &out,
		ReadBack: func(_ context.Context, act Action) (bool, error) { return paidInBackOffice(srv, act.InvoiceID) }}, &out
}

// paidInBackOffice tells whether the sandbox holds invoice id paid, read
// under the sandbox's own lock (Change with no change).
func paidInBackOffice(srv *sandbox.Server, id string) (bool, error) {
	var paid bool
	err := srv.Change("invoices", id, func(rec any) { paid = rec.(*sandbox.Invoice).PaymentDate != nil })
	return paid, err
}

// unpaidPlan is a plan of a markpaid for each of the first n invoices of
// the sandbox with no PaymentDate.
func unpaidPlan(t *testing.T, srv *sandbox.Server, n int) Plan {
	t.Helper()
	p := Plan{Snapshot: "s", Created: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	for _, inv := range srv.Dataset().Invoices {
		if inv.PaymentDate == nil && len(p.Actions) < n {
			p.Actions = append(p.Actions, Action{Op: OpMarkPaid, InvoiceID: inv.ID, PaymentDate: "2026-11-02T10:00:00Z",
				Finding: Finding{Rule: "payment_without_invoice", EntityID: inv.ID, Amount: "1", Currency: "USD"}})
		}
	}
	if len(p.Actions) != n {
		t.Fatalf("the sandbox has %d unpaid invoices, want %d", len(p.Actions), n)
	}
	p.Digest = p.Sum()
	return p
}

// The digest is the plan's content: the same for the same plan, through
// Write and Read; different for any edit of it, each of which Read lets
// through (it is what Plan.CheckDigest compares that refuses an edited plan).
func TestTheDigestIsThePlansContent(t *testing.T) {
	q := int64(3)
	p := Plan{Snapshot: "snap-1", Created: time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC), Actions: []Action{
		{Op: OpMarkPaid, InvoiceID: "00000000-0000-4000-8000-000000000001", PaymentDate: "2026-11-01T00:00:00Z", Finding: Finding{Rule: "payment_without_invoice", EntityID: "e1", Amount: "10", Currency: "USD"}},
		{Op: OpSetAmount, ReferenceID: "00000000-0000-4000-8000-000000000002", Quantity: &q, Finding: Finding{Rule: "missed_billing_run", EntityID: "e2", Amount: "5", Currency: "EUR"}},
	}}
	sum := p.Sum()
	if len(sum) != 64 || p.Sum() != sum {
		t.Fatalf("Sum %q, then %q", sum, p.Sum())
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	read, err := Read(path)
	if err != nil || read.Digest != sum || read.Sum() != sum {
		t.Fatalf("read back: digest %q, sum %q, %v; want %q", read.Digest, read.Sum(), err, sum)
	}
	text := b.String()
	for _, edit := range [][2]string{
		{`"snap-1"`, `"snap-2"`},
		{`"2026-11-01T08:00:00Z"`, `"2026-11-01T08:00:01Z"`},
		{`"payment_date": "2026-11-01T00:00:00Z"`, `"payment_date": "2020-01-01T00:00:00Z"`},
		{`"quantity": 3`, `"quantity": 4`},
		{`-000000000001"`, `-000000000003"`},
		{`"currency": "EUR"`, `"currency": "GBP"`},
	} {
		if !strings.Contains(text, edit[0]) {
			t.Fatalf("the plan as written lacks %s:\n%s", edit[0], text)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(text, edit[0], edit[1], 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		edited, err := Read(path)
		if err != nil || edited.Digest != sum || edited.Sum() == sum {
			t.Errorf("%s → %s: digest %q, sum %q, %v; want the digest kept and the sum changed", edit[0], edit[1], edited.Digest, edited.Sum(), err)
		}
	}
	swapped := p
	swapped.Actions = []Action{p.Actions[1], p.Actions[0]}
	if swapped.Sum() == sum {
		t.Error("the actions in another order have the same sum")
	}
}

// A write applied once is never sent twice: the first apply makes each
// (the sandbox's back office shows the invoices paid and the quantity
// set); a second apply of the same plan, and its dry run, send nothing
// (the sandbox, counting, receives no request). With the record lost,
// the service's own answer (85000, paid already) says so of each
// markpaid.
func TestAnAppliedWriteIsNeverSentTwice(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 10}, "")
	p := unpaidPlan(t, srv, 3)
	charge := activeCharge(t, srv)
	q := charge.Amount + 7
	p.Actions = append(p.Actions, Action{Op: OpSetAmount, ReferenceID: charge.ReferenceID, Quantity: &q, Finding: Finding{Rule: "missed_billing_run", EntityID: charge.ID}})
	p.Digest = p.Sum()
	a, out := applierAt(t, srv, srv.BaseURL())
	before := srv.Requests()
	sum, err := a.Apply(context.Background(), p)
	if err != nil || sum != (Summary{Done: 4, Writes: 4}) || srv.Requests()-before != 4 {
		t.Fatalf("the first apply: %+v, %v, %d requests", sum, err, srv.Requests()-before)
	}
	for _, act := range p.Actions[:3] {
		if paid, err := paidInBackOffice(srv, act.InvoiceID); !paid || err != nil {
			t.Errorf("invoice %s not paid after apply: %v", act.InvoiceID, err)
		}
	}
	var now int64
	if err := srv.Change("subscriptioncharges", charge.ID, func(rec any) { now = rec.(*sandbox.SubscriptionCharge).Amount }); err != nil || now != q {
		t.Errorf("charge %s: quantity %d after apply, want %d (%v)", charge.ID, now, q, err)
	}
	before = srv.Requests()
	sum, err = a.Apply(context.Background(), p)
	if err != nil || sum != (Summary{Skipped: 4}) {
		t.Errorf("the second apply: %+v, %v", sum, err)
	}
	if err := a.DryRun(p); err != nil || strings.Count(out.String(), "not sent") != 4 || !strings.Contains(out.String(), "dry run: 0 requests would be sent") {
		t.Errorf("the dry run after apply: %v\n%s", err, out)
	}
	if n := srv.Requests() - before; n != 0 {
		t.Errorf("a second apply and a dry run sent %d requests", n)
	}
	lost, _ := applierAt(t, srv, srv.BaseURL())
	if sum, err := lost.Apply(context.Background(), p); err != nil || sum != (Summary{AlreadyDone: 3, Done: 1, Writes: 4}) {
		t.Errorf("with the record lost: %+v, %v; want each markpaid answered already done", sum, err)
	}
}

// activeCharge is the first active charge of the sandbox that carries a
// reference no other active charge carries.
func activeCharge(t *testing.T, srv *sandbox.Server) sandbox.SubscriptionCharge {
	t.Helper()
	active := map[string]int{}
	for _, c := range srv.Dataset().Charges {
		if c.Status == sandbox.StatusActive {
			active[c.ReferenceID]++
		}
	}
	for _, c := range srv.Dataset().Charges {
		if c.Status == sandbox.StatusActive && active[c.ReferenceID] == 1 {
			return *c
		}
	}
	t.Fatal("no active charge with a reference of its own")
	return sandbox.SubscriptionCharge{}
}

// dropper serves the sandbox and loses the answer to the write numbered
// drop: the write reaches the service (made) or not (lost before), and
// the connection closes with no answer.
type dropper struct {
	h     http.Handler
	drop  int64
	made  bool
	puts  atomic.Int64 // writes that reached the service
	seen  atomic.Int64 // writes received
	stray atomic.Int64
}

func (d *dropper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut {
		d.h.ServeHTTP(w, r)
		return
	}
	if d.seen.Add(1) != d.drop {
		d.puts.Add(1)
		d.h.ServeHTTP(w, r)
		return
	}
	if d.made {
		d.puts.Add(1)
		d.h.ServeHTTP(httptest.NewRecorder(), r)
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		d.stray.Add(1)
		return
	}
	conn.Close()
}

// A write whose answer is lost has an unknown fate, and is read back
// before anything is sent again: made, it is not sent again; not made,
// it is sent once more. The record says what happened.
func TestAWriteOfUnknownFateIsReadBackNotSentAgain(t *testing.T) {
	for _, made := range []bool{true, false} {
		srv := sandboxtest.Start(t, sandbox.Options{Seed: 6, Customers: 10}, "")
		d := &dropper{h: srv.Handler(), drop: 2, made: made}
		via := httptest.NewServer(d)
		t.Cleanup(via.Close)
		p := unpaidPlan(t, srv, 3)
		a, _ := applierAt(t, srv, via.URL)
		sum, err := a.Apply(context.Background(), p)
		wantWrites := 4 // the lost one sent again
		if made {
			wantWrites = 3
		}
		if err != nil || sum.Done != 3 || sum.Writes != wantWrites || d.puts.Load() != 3 || d.stray.Load() != 0 {
			t.Fatalf("made %v: %+v, %v; %d writes reached the service, want 3", made, sum, err, d.puts.Load())
		}
		events, err := a.Record.Events(p.Digest)
		if err != nil {
			t.Fatal(err)
		}
		var unknown, readBack []string
		for _, e := range events {
			switch e.Event {
			case EvUnknown:
				unknown = append(unknown, e.Key)
			case EvReadBack:
				readBack = append(readBack, e.Outcome)
			}
		}
		wantRead := NotMade
		if made {
			wantRead = Done
		}
		if len(unknown) != 1 || unknown[0] != p.Actions[1].Key() || len(readBack) != 1 || readBack[0] != wantRead {
			t.Errorf("made %v: the record's unknown fates %v and reads %v; want the second action's, read back %s", made, unknown, readBack, wantRead)
		}
	}
}
