// Package progress reports an export as it goes, on stderr. A [Report],
// made by [New] in the mode the progress option asks for, is told of walks
// and pages as job.Service's Progress. It draws a bar on a terminal
// (through the CLI's [Screen], so that log lines go above the bar), writes
// log lines otherwise, or nothing. When no page has come for 30 seconds it
// says at WARN what the export waits on.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// stallAfter is how long an export may go without a page before progress
// says what it is waiting on.
const stallAfter = 30 * time.Second

// Report reports an export on stderr: on a terminal one bar for the
// whole export (records out of the TotalCounts announced, then loading and
// publishing; a rate once a second has passed), ended only when the export
// ends, at 100% when it succeeded, with log lines written above it (screen);
// otherwise a log line every few seconds; or nothing. In every mode but
// none, when no page has come for stallAfter it says, at WARN, what it is
// waiting on.
type Report struct {
	mu      sync.Mutex
	colls   int            // collections the export walks
	total   map[string]int // TotalCount per collection, as announced
	done    map[string]int // records taken per collection in its current walk
	start   time.Time      // when the export began
	last    time.Time      // when the last page came, or the export began
	stalled bool           // the stall was said since the last page
	bar     *progressbar.ProgressBar
	screen  Screen // where the bar draws
	log     *slog.Logger
	stop    chan struct{}
	stopped sync.WaitGroup
}

// Screen is stderr shared by the log and the bar: the bar draws through
// BarWriter, and what else is written goes above it.
type Screen interface {
	BarWriter() io.Writer // where the bar draws itself, until BarDone
	BarErase()            // erases the bar's line
	BarDone()             // ends the bar: its last frame stays
}

// New starts the progress report of an export of colls collections, in
// mode auto (bar when stderr, the raw file, is a terminal, else log),
// bar (drawn on screen), log (a line to log every every) or none.
func New(mode string, stderr io.Writer, screen Screen, log *slog.Logger, every time.Duration, colls int) *Report {
	now := time.Now()
	p := &Report{colls: colls, total: map[string]int{}, done: map[string]int{}, start: now, last: now, log: log, stop: make(chan struct{})}
	if mode == "auto" {
		mode = "log"
		if isTerminal(stderr) {
			mode = "bar"
		}
	}
	switch mode {
	case "bar":
		p.screen = screen
		// A length from the start (the first page sets the real one): a bar
		// of unknown length runs a spinner goroutine of progressbar's that
		// reads the bar's state without its lock.
		p.bar = progressbar.NewOptions64(1, progressbar.OptionSetWriter(p.screen.BarWriter()), progressbar.OptionSetDescription("walking"),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionSetWidth(30))
		p.watch(time.Second, false)
	case "log":
		p.watch(every, true)
	}
	return p
}

// isTerminal tells whether w is a file that is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Walking is told a collection's (re)walk began, and its TotalCount.
func (p *Report) Walking(table string, _, totalCount int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total[table], p.done[table] = totalCount, 0
	p.paged()
}

// PageDone is told a page's records were taken.
func (p *Report) PageDone(table string, records int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[table] += records
	p.paged()
}

// paged notes that a page came, and redraws the bar.
func (p *Report) paged() {
	p.last, p.stalled = time.Now(), false
	if p.bar == nil {
		return
	}
	done, total := p.sums()
	p.bar.Describe(p.describe(done, total))
	// One more than the records: the bar reaches its end only in Done.
	p.bar.ChangeMax64(int64(max(total, done) + 1))
	p.bar.Set64(int64(done))
}

// describe is the bar's text: the phase, the records so far and, once a
// second has passed, their rate.
func (p *Report) describe(done, total int) string {
	phase := "walking"
	if p.walked() {
		phase = "loading and publishing"
	}
	text := fmt.Sprintf("%s %d/%d records", phase, done, total)
	if elapsed := time.Since(p.start); elapsed >= time.Second && done > 0 {
		text += fmt.Sprintf(" · %.0f/s", float64(done)/elapsed.Seconds())
	}
	return text
}

func (p *Report) sums() (done, total int) {
	for t, n := range p.total {
		total += n
		done += p.done[t]
	}
	return done, total
}

// walked tells whether every collection has announced itself and taken
// all it announced: what is left is loading and publishing.
func (p *Report) walked() bool {
	return len(p.total) == p.colls && len(p.waiting()) == 0
}

// waiting lists the collections announced whose walk has not taken all
// it announced.
func (p *Report) waiting() []string {
	var out []string
	for t, n := range p.total {
		if p.done[t] < n {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// watch checks every period for a stall, and with logLines logs the
// progress too, until Done.
func (p *Report) watch(every time.Duration, logLines bool) {
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.tick(logLines)
			case <-p.stop:
				return
			}
		}
	}()
}

// tick logs the progress (with logLines) and a stall once per stall.
func (p *Report) tick(logLines bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	done, total := p.sums()
	if logLines && len(p.total) > 0 { // nothing to say before the first page
		phase := "walking"
		if p.walked() {
			phase = "loading and publishing"
		}
		p.log.Info("progress", "records", done, "of", total, "collections", len(p.total), "phase", phase)
	}
	if quiet := time.Since(p.last); quiet >= stallAfter && !p.stalled && !p.walked() {
		p.stalled = true
		p.log.Warn(fmt.Sprintf("no page for %s: waiting on %s", quiet.Round(time.Second), p.waitingOn()))
	}
}

// waitingOn says which collections an export that has stalled waits on.
func (p *Report) waitingOn() string {
	var parts []string
	if w := p.waiting(); len(w) > 0 {
		parts = append(parts, "the next page of "+strings.Join(w, ", "))
	}
	if n := p.colls - len(p.total); n > 0 {
		parts = append(parts, fmt.Sprintf("the first page of %d of %d collections", n, p.colls))
	}
	if len(parts) == 0 {
		return "the service"
	}
	return strings.Join(parts, ", and ")
}

// Done ends the report: an export that succeeded (ok) ends its bar at
// 100%, one that failed leaves it where it stopped.
func (p *Report) Done(ok bool) {
	close(p.stop)
	p.stopped.Wait()
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	done, _ := p.sums()
	nothing := len(p.total) == 0
	p.mu.Unlock()
	switch {
	case ok:
		p.bar.Describe(fmt.Sprintf("done %d records in %s", done, time.Since(p.start).Round(100*time.Millisecond)))
		p.bar.ChangeMax64(int64(max(done, 1)))
		p.bar.Finish()
	case nothing: // no page came: the bar said nothing worth keeping
		p.bar.Exit()
		p.screen.BarErase()
	default:
		p.bar.Exit()
	}
	p.screen.BarDone()
}
