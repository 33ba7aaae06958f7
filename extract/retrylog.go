package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"
)

// retrySummaryEvery is how often, at most, the log says again that
// requests are being retried for one cause.
const retrySummaryEvery = 5 * time.Second

// retryLog tells of retries without flooding the terminal: every retry at
// debug; at info, the first retry of each cause, then at most every
// retrySummaryEvery how many times it happened since ("retrying:
// connection refused, 12 times in 5s").
type retryLog struct {
	mu     sync.Mutex
	log    *slog.Logger
	now    func() time.Time
	causes map[string]*retryCause
}

// retryCause is what the log has said of one cause.
type retryCause struct {
	said   time.Time // when info last spoke of it
	unsaid int       // retries since
}

func newRetryLog(log *slog.Logger, now func() time.Time) *retryLog {
	return &retryLog{log: log, now: now, causes: map[string]*retryCause{}}
}

// note logs one retry for err; msg is what the debug line says, args its
// attributes.
func (l *retryLog) note(err error, msg string, args ...any) {
	l.log.Debug(msg, args...)
	cause := causeOf(err)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	c, ok := l.causes[cause]
	switch {
	case !ok:
		l.causes[cause] = &retryCause{said: now}
		l.log.Info(msg+": "+cause, args...)
	case now.Sub(c.said) >= retrySummaryEvery:
		l.log.Info(fmt.Sprintf("%s: %s, %d times in %s", msg, cause, c.unsaid+1, now.Sub(c.said).Round(time.Second)))
		c.said, c.unsaid = now, 0
	default:
		c.unsaid++
	}
}

// causeOf names what made a request fail, in a few words that are the
// same for every request that failed the same way.
func causeOf(err error) string {
	var api *APIError
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &api):
		return fmt.Sprintf("HTTP %d", api.Status)
	case errors.As(err, &dns):
		return "DNS: " + dns.Err
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}
