package main

import (
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports the walk on stderr: a live bar on a terminal, a log line
// every few seconds otherwise, or nothing.
type progress struct {
	mu      sync.Mutex
	total   map[string]int // TotalCount per collection, as announced
	done    map[string]int // records taken per collection in its current walk
	bar     *progressbar.ProgressBar
	log     *slog.Logger
	stop    chan struct{}
	stopped sync.WaitGroup
}

// newProgress starts the progress report mode: auto, bar, log or none.
func newProgress(mode string, env *cliEnv, every time.Duration) *progress {
	p := &progress{total: map[string]int{}, done: map[string]int{}, log: env.log, stop: make(chan struct{})}
	if mode == "auto" {
		mode = "log"
		if isTerminal(env.rawStderr) {
			mode = "bar"
		}
	}
	switch mode {
	case "bar":
		p.bar = progressbar.NewOptions64(-1, progressbar.OptionSetWriter(env.stderr), progressbar.OptionSetDescription("records"),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30))
	case "log":
		p.stopped.Add(1)
		go p.logEvery(every)
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Walking is told a collection's (re)walk began, and its TotalCount.
func (p *progress) Walking(table string, _, totalCount int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total[table], p.done[table] = totalCount, 0
	p.render()
}

// PageDone is told a page's records were taken.
func (p *progress) PageDone(table string, records int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[table] += records
	p.render()
}

func (p *progress) sums() (done, total int) {
	for t, n := range p.total {
		total += n
		done += p.done[t]
	}
	return done, total
}

func (p *progress) render() {
	if p.bar == nil {
		return
	}
	done, total := p.sums()
	p.bar.ChangeMax64(int64(max(total, done)))
	p.bar.Set64(int64(done))
}

func (p *progress) logEvery(every time.Duration) {
	defer p.stopped.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.mu.Lock()
			done, total := p.sums()
			walking := len(p.total)
			p.mu.Unlock()
			p.log.Info("progress", "records", done, "of", total, "collections", walking)
		case <-p.stop:
			return
		}
	}
}

// Done ends the report.
func (p *progress) Done() {
	close(p.stop)
	p.stopped.Wait()
	if p.bar != nil {
		p.bar.Finish()
	}
}
