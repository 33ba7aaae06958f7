package ingest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/billsnap/billsnap/extract"
)

// callLog is a Target that records the calls its sinks get, in order, and
// refuses the page refuse names (0: none).
type callLog struct {
	mu     sync.Mutex
	calls  []string
	refuse int
}

func (c *callLog) add(call string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, call)
}

func (c *callLog) Sink(table string) extract.Sink { return logSink{c, table} }
func (c *callLog) Walked(res extract.Result)      { c.add("walked " + res.Table) }

type logSink struct {
	c     *callLog
	table string
}

func (s logSink) Restart(walk int) error {
	s.c.add(fmt.Sprintf("%s restart %d", s.table, walk))
	return nil
}

func (s logSink) Page(p *extract.Page) error {
	if p.Paging.CurrentPage == s.c.refuse {
		return errors.New("a contract field of the wrong type")
	}
	s.c.add(fmt.Sprintf("%s page %d", s.table, p.Paging.CurrentPage))
	return nil
}

func (s logSink) End() (extract.Tally, error) {
	s.c.add(s.table + " end")
	return extract.Tally{}, nil
}

func pageN(n int) *extract.Page {
	return &extract.Page{URL: fmt.Sprintf("https://billing.example/customers?page=%d&api_key=secret", n), Paging: extract.Paging{CurrentPage: n}}
}

// A Later's sink keeps Held pages before its target is given, so that
// the walk goes on meanwhile, then waits; once given, the target gets
// the restart and every page in the order taken, then the end.
func TestALaterTargetGetsEveryCallInOrder(t *testing.T) {
	t.Parallel()
	later := NewLater()
	sink := later.Sink("customers")
	if err := sink.Restart(1); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= Held; n++ {
		if err := sink.Page(pageN(n)); err != nil { // returns at once: nothing is given yet
			t.Fatalf("page %d: %v", n, err)
		}
	}
	done := make(chan error)
	go func() {
		err := sink.Page(pageN(Held + 1)) // waits for the target
		if err == nil {
			_, err = sink.End()
		}
		later.Walked(extract.Result{Table: "customers"})
		done <- err
	}()
	log := &callLog{}
	later.Set(log)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"customers restart 1"}
	for n := 1; n <= Held+1; n++ {
		want = append(want, fmt.Sprintf("customers page %d", n))
	}
	want = append(want, "customers end", "walked customers")
	if got := strings.Join(log.calls, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("the target got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// A walk that drifted and starts again before the target is given
// takes back the pages it kept: the target gets the new walk's restart
// and pages only.
func TestALaterTargetGetsNoPageOfAWalkRestartedBeforeIt(t *testing.T) {
	t.Parallel()
	later := NewLater()
	sink := later.Sink("contacts")
	for walk := 1; walk <= 2; walk++ {
		if err := sink.Restart(walk); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 2+walk; n++ {
			if err := sink.Page(pageN(n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	log := &callLog{}
	later.Set(log)
	if _, err := sink.End(); err != nil {
		t.Fatal(err)
	}
	want := "contacts restart 2\ncontacts page 1\ncontacts page 2\ncontacts page 3\ncontacts page 4\ncontacts end"
	if got := strings.Join(log.calls, "\n"); got != want {
		t.Errorf("the target got\n%s\nwant\n%s", got, want)
	}
}

// A page kept while the target was not there, which the target then
// refuses, is named in the error (its number, its URL redacted), not the
// page the walker was taking; an abandoned Later fails every call.
func TestALaterTargetNamesTheKeptPageItRefusesAndAnAbandonedOneFails(t *testing.T) {
	t.Parallel()
	later := NewLater()
	sink := later.Sink("customers")
	for n := 1; n <= 3; n++ {
		if err := sink.Page(pageN(n)); err != nil {
			t.Fatal(err)
		}
	}
	later.Set(&callLog{refuse: 2})
	err := sink.Page(pageN(4))
	var pe *extract.PageError
	if !errors.As(err, &pe) || pe.Page != 2 || pe.Table != "customers" || strings.Contains(err.Error(), "secret") ||
		!strings.Contains(err.Error(), "wrong type") {
		t.Errorf("a kept page refused: %v, want a PageError naming page 2 with its URL redacted", err)
	}

	abandoned := NewLater()
	sink = abandoned.Sink("customers")
	if err := sink.Page(pageN(1)); err != nil {
		t.Fatal(err)
	}
	abandoned.Abandon()
	if err := sink.Page(pageN(2)); !errors.Is(err, errNoTarget) {
		t.Errorf("a page after Abandon: %v, want %v", err, errNoTarget)
	}
	if _, err := sink.End(); !errors.Is(err, errNoTarget) {
		t.Errorf("End after Abandon: %v, want %v", err, errNoTarget)
	}
	abandoned.Walked(extract.Result{Table: "customers"}) // goes nowhere, and does not wait
}
