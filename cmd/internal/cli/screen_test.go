package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// visibleLines is what a terminal shows of raw output: carriage returns go
// back to the line's start, ESC[K and ESC[2K erase it, other escapes are
// left out.
func visibleLines(raw []byte) []string {
	var lines []string
	var cur []rune
	col := 0
	for i := 0; i < len(raw); {
		switch {
		case raw[i] == '\n':
			lines, cur, col = append(lines, string(cur)), nil, 0
			i++
		case raw[i] == '\r':
			col = 0
			i++
		case bytes.HasPrefix(raw[i:], []byte("\033[K")), bytes.HasPrefix(raw[i:], []byte("\033[0K")):
			cur = cur[:col]
			i += bytes.IndexByte(raw[i:], 'K') + 1
		case bytes.HasPrefix(raw[i:], []byte("\033[2K")):
			cur = cur[:0]
			i += 4
		case raw[i] == '\033':
			end := bytes.IndexFunc(raw[i+1:], func(r rune) bool { return r >= '@' && r <= '~' && r != '[' })
			i += end + 2
		default:
			r, size := utf8.DecodeRune(raw[i:])
			for len(cur) < col {
				cur = append(cur, ' ')
			}
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
			i += size
		}
	}
	return append(lines, string(cur))
}

// isBar tells a line the progress bar drew.
func isBar(line string) bool { return strings.Contains(line, "records") && strings.Contains(line, "%") }

// On a terminal (a pseudo-terminal here), an export's bar ends at 100%,
// shows a rate only once one is measured, and no log line shares a line
// with it, though the service fails often enough to log retries while it
// draws.
func TestTheBarOnATerminal(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	var raw bytes.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&raw, ptmx); close(read) }()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 120}, "503=0.08")
	vars := map[string]string{"BILLSNAP_API_KEY": sandboxtest.Key, "BILLSNAP_BASE_URL": srv.BaseURL(), "BILLSNAP_FRONT_URL": srv.FrontURL()}
	env := newEnv(&bytes.Buffer{}, tty, func(k string) string { return vars[k] })
	env.clock, env.tune = fakeclock.New(time.Now()), oneThread
	code := env.run(context.Background(), []string{"export", "--out", filepath.Join(t.TempDir(), "s")})
	tty.Close()
	<-read
	if code != job.ExitOK {
		t.Fatalf("export: exit %d\n%s", code, raw.String())
	}
	lines := visibleLines(raw.Bytes())
	var bars, logs int
	last := ""
	for _, l := range lines {
		if isBar(l) {
			bars++
			last = l
		}
		if strings.Contains(l, "level=") {
			logs++
			if isBar(l) {
				t.Errorf("a log line shares a line with the bar: %q", l)
			}
		}
		if strings.Contains(l, "/hr") {
			t.Errorf("a rate before one is measured: %q", l)
		}
	}
	if bars != 1 || !strings.Contains(last, "100%") || logs < 2 || strings.Count(raw.String(), "retrying: HTTP 503") == 0 {
		t.Errorf("%d bar lines (the last %q), %d log lines; want one bar, ended at 100%%, under the log's lines:\n%s", bars, last, logs, strings.Join(lines, "\n"))
	}
}
