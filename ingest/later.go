package ingest

import (
	"errors"
	"fmt"

	"github.com/billsnap/billsnap/extract"
)

// Later is a Target that is given once the walks have started: a
// snapshot begins (its state recorded, its DuckDB file made) while the
// first pages are on their way, instead of before they are asked for.
// Until Set gives the target, each of its sinks keeps up to Held pages
// (so that the walker goes on to fetch the pages after them) and then
// waits; a walk's Restart is kept too, and done first. Abandon says
// there will be no target: held pages are dropped and every call after
// fails.
type Later struct {
	ready chan struct{}
	t     Target // set before ready is closed; nil when abandoned
}

// errNoTarget is what a sink of an abandoned Later returns.
var errNoTarget = errors.New("the snapshot did not begin")

// Held is how many pages a sink of a Later keeps before its target is
// given: as many as the walker fetches ahead of the page it takes
// (config's prefetch, 8 by default), so that holding them costs no more
// memory than the walk does.
const Held = 8

// NewLater is a Later without its target yet.
func NewLater() *Later { return &Later{ready: make(chan struct{})} }

// Set gives the target; the sinks' calls held go on to it. Set or
// Abandon is called once.
func (l *Later) Set(t Target) {
	l.t = t
	close(l.ready)
}

// Abandon says the target will not come: held calls, and later ones,
// fail, and the walks stop at their first page.
func (l *Later) Abandon() { close(l.ready) }

// target waits for Set or Abandon and returns the target, nil when
// abandoned.
func (l *Later) target() Target {
	<-l.ready
	return l.t
}

// Sink is a sink of table that holds its calls until the target is
// given.
func (l *Later) Sink(table string) extract.Sink { return &laterSink{l: l, table: table} }

// Walked hands res to the target once it is given (to none when
// abandoned).
func (l *Later) Walked(res extract.Result) {
	if t := l.target(); t != nil {
		t.Walked(res)
	}
}

// laterSink is a sink of a Later's: its calls come from one walk
// goroutine at a time, as the walker makes them.
type laterSink struct {
	l       *Later
	table   string
	sink    extract.Sink    // the target's, once there
	restart int             // a Restart held (the walk's number), 0 for none
	held    []*extract.Page // pages taken before the target was given
}

// Restart is done at once when the target is there, else kept for the
// sink's next call, with the pages kept of the walk before dropped: the
// target never saw them, and the walk they came from is discarded.
func (s *laterSink) Restart(walk int) error {
	if !s.given() {
		s.restart, s.held = walk, nil
		return nil
	}
	if err := s.open(); err != nil {
		return err
	}
	return s.sink.Restart(walk)
}

// Page hands p to the target's sink, or keeps it while there is none
// yet and fewer than Held pages are kept.
func (s *laterSink) Page(p *extract.Page) error {
	if !s.given() && len(s.held) < Held {
		s.held = append(s.held, p)
		return nil
	}
	if err := s.open(); err != nil {
		return err
	}
	return s.sink.Page(p)
}

func (s *laterSink) End() (extract.Tally, error) {
	if err := s.open(); err != nil {
		return extract.Tally{}, err
	}
	return s.sink.End()
}

// given tells whether Set or Abandon was called.
func (s *laterSink) given() bool {
	select {
	case <-s.l.ready:
		return true
	default:
		return false
	}
}

// open waits for the target and, the first time, takes its sink of the
// table, does the Restart kept and hands over the pages kept. A kept
// page the sink refuses is named in the error, as the walker names the
// page it is taking.
func (s *laterSink) open() error {
	if s.sink != nil {
		return nil
	}
	t := s.l.target()
	if t == nil {
		s.held = nil
		return errNoTarget
	}
	s.sink = t.Sink(s.table)
	if walk := s.restart; walk != 0 {
		s.restart = 0
		if err := s.sink.Restart(walk); err != nil {
			return fmt.Errorf("restarting walk %d: %w", walk, err)
		}
	}
	held := s.held
	s.held = nil
	for _, p := range held {
		if err := s.sink.Page(p); err != nil {
			return &extract.PageError{Table: s.table, Page: p.Paging.CurrentPage, URL: extract.RedactURL(p.URL), Err: err}
		}
	}
	return nil
}
