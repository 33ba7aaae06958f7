package progress

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/billsnap/billsnap/internal/syncbuf"
)

// discardScreen is a screen that shows nothing.
type discardScreen struct{}

func (discardScreen) BarWriter() io.Writer { return io.Discard }
func (discardScreen) BarErase()            {}
func (discardScreen) BarDone()             {}

// Without a terminal, progress is a log line every few seconds.
func TestProgressLogLines(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var errb bytes.Buffer
		p := New("auto", &errb, nil, slog.New(slog.NewTextHandler(&errb, nil)), 5*time.Second, 2)
		p.Walking("customers", 1, 300)
		p.PageDone("customers", 100)
		time.Sleep(6 * time.Second)
		p.Walking("units", 1, 5)
		p.PageDone("units", 5)
		p.PageDone("customers", 200)
		time.Sleep(5 * time.Second)
		p.Done(true)
		for _, want := range []string{
			"msg=progress records=100 of=300 collections=1 phase=walking\n",
			`msg=progress records=305 of=305 collections=2 phase="loading and publishing"` + "\n",
		} {
			if !strings.Contains(errb.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, errb.String())
			}
		}
	})
}

// When no page has come for 30 s, progress says once, at WARN, what the
// export waits on; a page ends the stall, and the next one is said again.
func TestProgressSaysWhatAStallWaitsOn(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var errb syncbuf.Buffer // the ticker's goroutine writes it while the test reads
		p := New("log", &errb, nil, slog.New(slog.NewTextHandler(&errb, nil)), 5*time.Second, 3)
		p.Walking("customers", 1, 300)
		p.PageDone("customers", 100)
		time.Sleep(29 * time.Second)
		if strings.Contains(errb.String(), "no page") {
			t.Fatalf("a stall said after 29 s: %s", errb.String())
		}
		time.Sleep(40 * time.Second)
		want := `level=WARN msg="no page for 30s: waiting on the next page of customers, and the first page of 2 of 3 collections"` + "\n"
		if got := errb.String(); strings.Count(got, "no page") != 1 || !strings.Contains(got, want) {
			t.Errorf("stderr %q, want once %q", got, want)
		}
		p.PageDone("customers", 100)
		time.Sleep(35 * time.Second)
		p.Done(true)
		if got := errb.String(); strings.Count(got, "no page") != 2 {
			t.Errorf("after a page and another stall, %d stall lines:\n%s", strings.Count(got, "no page"), got)
		}
	})
}

// On a terminal the bar ends only when the export does: a collection
// that has taken all it announced does not end it.
// (Not in a synctest bubble: the bar's spinner ticks on a goroutine of its
// own until the next tick after it ends.)
func TestTheBarEndsOnlyWithTheExport(t *testing.T) {
	t.Parallel()
	p := New("bar", io.Discard, discardScreen{}, slog.New(slog.DiscardHandler), 5*time.Second, 2)
	p.Walking("units", 1, 5)
	p.PageDone("units", 5)
	if p.bar.IsFinished() {
		t.Error("the bar ended when the first collection did")
	}
	p.Walking("customers", 1, 300)
	p.PageDone("customers", 300)
	if p.bar.IsFinished() {
		t.Error("the bar ended before loading and publishing")
	}
	p.Done(true)
	if !p.bar.IsFinished() {
		t.Error("the bar did not end with the export")
	}
}
