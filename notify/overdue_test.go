package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
)

// overdueEvents are the overdue events posted so far.
func (f *fixture) overdueEvents(t *testing.T) []Message {
	var out []Message
	for _, m := range f.events(t) {
		if m.Event == Overdue {
			out = append(out, m)
		}
	}
	return out
}

// An assigned finding whose due day has passed at its reconciliation is
// sent once, as the overdue event, with its assignee and due date: not
// again at the next run, nor once the record of deliveries is pruned; a
// new due date that passes too sends it again; a finding not yet due, or
// waived, is not sent.
func TestAnOverdueFindingIsSentOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options{}, 0)
	l := ledger.New(layout.Dir(f.out).Ledger(), f.clock.now)
	assign := func(id, due string) {
		if _, err := l.Assign(ledger.Actor{By: "erin"}, []ledger.Assignment{{Rule: "paid_unpaid", EntityID: id, Assignee: "dana", Due: due}}); err != nil {
			t.Fatal(err)
		}
	}
	assign("i1", "2026-11-20")
	assign("i2", "2026-12-31")
	assign("i3", "2026-11-01")
	rep := func(id string) *findings.Report {
		r := report(id, "i1", "i2", "i3")
		r.AsOf = f.clock.t
		r.Findings[2].Waiver = &findings.Waiver{Reason: "agreed"}
		return r
	}
	f.n.AfterRun(ctx, run("r1", 3), rep("s1"))
	ev := f.overdueEvents(t)
	if len(ev) != 1 || len(ev[0].OverdueFindings) != 1 || ev[0].OverdueFindings[0] != (OverdueFinding{Rule: "paid_unpaid", Entity: "invoice", EntityID: "i1",
		Assignee: "dana", Due: "2026-11-20", Amount: "10.00", Currency: "EUR"}) || !strings.Contains(ev[0].Summary, "assigned to dana was due 2026-11-20") {
		t.Fatalf("the overdue events after a run: %+v", ev)
	}
	f.n.AfterRun(ctx, run("r2", 3), rep("s2"))
	if err := journal.DeliveriesIn(layout.Dir(f.out).Notifications()).Prune(f.clock.t.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	f.clock.t = f.clock.t.Add(2 * time.Hour)
	f.n.AfterRun(ctx, run("r3", 3), rep("s3"))
	if ev := f.overdueEvents(t); len(ev) != 1 {
		t.Fatalf("the same overdue finding, two runs and a prune later: %d events", len(ev))
	}
	assign("i1", "2026-11-24")
	f.n.AfterRun(ctx, run("r4", 3), rep("s4"))
	if ev := f.overdueEvents(t); len(ev) != 2 || ev[1].OverdueFindings[0].Due != "2026-11-24" || len(ev[1].OverdueFindings) != 1 {
		t.Fatalf("a new due date passed: %+v", ev)
	}
	if text := ev[0].text(); !strings.Contains(text, "- paid_unpaid invoice i1, assigned to dana, due 2026-11-20: 10.00 EUR") {
		t.Errorf("the message's text:\n%s", text)
	}
}
