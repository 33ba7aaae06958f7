package extract

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/billsnap/billsnap/internal/syncbuf"
)

// Retries of one cause are said once at info, then summarised at most every
// retrySummaryEvery with how many happened; every retry is at debug.
func TestRetriesAreSummarisedByCause(t *testing.T) {
	var out syncbuf.Buffer
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	l := newRetryLog(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})), func() time.Time { return now })
	refused := fmt.Errorf("dial tcp 127.0.0.1:1: connect: %w", syscall.ECONNREFUSED)
	for range 24 { // 12 s, a retry each half second
		l.note(refused, "retrying", "collection", "customers")
		now = now.Add(500 * time.Millisecond)
	}
	l.note(&APIError{Status: 503}, "retrying", "collection", "invoices")
	var info []string
	for line := range strings.Lines(out.String()) {
		if strings.Contains(line, "level=INFO") {
			info = append(info, line)
		}
	}
	want := []string{`msg="retrying: connection refused" collection=customers`, `msg="retrying: connection refused, 10 times in 5s"`,
		`msg="retrying: connection refused, 10 times in 5s"`, `msg="retrying: HTTP 503" collection=invoices`}
	if len(info) != len(want) {
		t.Fatalf("%d info lines, want %d:\n%s", len(info), len(want), strings.Join(info, ""))
	}
	for i, w := range want {
		if !strings.Contains(info[i], w) {
			t.Errorf("info line %d is %q, want %q", i+1, info[i], w)
		}
	}
	if n := strings.Count(out.String(), "level=DEBUG msg=retrying "); n != 25 {
		t.Errorf("%d debug lines for 25 retries", n)
	}
}

func TestCauses(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("get: %w", syscall.ECONNREFUSED):    "connection refused",
		&APIError{Status: 502}:                         "HTTP 502",
		errors.New("reading the body: unexpected EOF"): "unexpected EOF",
	} {
		if got := causeOf(err); got != want {
			t.Errorf("%v: %q, want %q", err, got, want)
		}
	}
}
