package guard

import (
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Body limits: a login is a token, a name and a path; every other form
// or JSON call is a waiver, a sign-off or a close, with a comment.
const (
	loginBody = 4 << 10
	formBody  = 64 << 10
)

// limitBody refuses a body over its route's limit before reading it when
// its length is declared (413), caps it while it is read when not, and
// parses a form at once within the limit, so that no form, multipart
// included, is ever spooled to disk.
func (g *Guard) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := int64(formBody)
		if r.URL.Path == "/login" {
			limit = loginBody
		}
		if r.ContentLength > limit {
			w.Header().Set("Connection", "close")
			g.o.Pages.Fail(w, r, http.StatusRequestEntityTooLarge, fmt.Errorf("the request's body is %d bytes; %s takes at most %d", r.ContentLength, r.URL.Path, limit))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if err := parseForm(r, limit); err != nil {
			code := http.StatusBadRequest
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				code = http.StatusRequestEntityTooLarge
				w.Header().Set("Connection", "close")
			}
			g.o.Pages.Fail(w, r, code, fmt.Errorf("the request's form: %w", err))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// parseForm parses r's form, if it sends one, keeping all of it in memory
// (the body is already capped at limit).
func parseForm(r *http.Request, limit int64) error {
	if r.Method != http.MethodPost {
		return nil
	}
	switch ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct {
	case "multipart/form-data":
		return r.ParseMultipartForm(limit + 1)
	case "application/x-www-form-urlencoded":
		return r.ParseForm()
	}
	return nil
}

// Login attempts: this many wrong ones from an address, or for a user,
// within loginWindow, and further ones wait until the window ends.
const (
	loginFailures = 10
	loginWindow   = time.Minute
	maxLimited    = 10000 // addresses (or users) remembered at once
)

// limiter counts wrong login attempts per key (an address, a user) in a
// fixed window, and remembers at most maxLimited keys: past that, the
// ended windows are forgotten, then the oldest.
type limiter struct {
	mu  sync.Mutex
	m   map[string]window
	now func() time.Time
}

type window struct {
	start    time.Time
	failures int
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{m: map[string]window{}, now: now}
}

// wait is how long key must wait before its next attempt (0: it may try).
func (l *limiter) wait(key string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.m[key]
	if !ok {
		return 0
	}
	left := w.start.Add(loginWindow).Sub(l.now())
	if left <= 0 {
		delete(l.m, key)
		return 0
	}
	if w.failures < loginFailures {
		return 0
	}
	return left
}

// fail counts a wrong attempt of key.
func (l *limiter) fail(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w, ok := l.m[key]
	if !ok || !now.Before(w.start.Add(loginWindow)) {
		if !ok && len(l.m) >= maxLimited {
			l.forget(now)
		}
		w = window{start: now}
	}
	w.failures++
	l.m[key] = w
}

// forget drops the ended windows and, when that leaves more than nine
// tenths of maxLimited, the oldest down to that: one sort per tenth of
// maxLimited new keys at most.
func (l *limiter) forget(now time.Time) {
	keys := make([]string, 0, len(l.m))
	for k, w := range l.m {
		if !now.Before(w.start.Add(loginWindow)) {
			delete(l.m, k)
		} else {
			keys = append(keys, k)
		}
	}
	keep := maxLimited * 9 / 10
	if len(keys) <= keep {
		return
	}
	slices.SortFunc(keys, func(a, b string) int { return l.m[a].start.Compare(l.m[b].start) })
	for _, k := range keys[:len(keys)-keep] {
		delete(l.m, k)
	}
}

// tooMany answers 429 with Retry-After (whole seconds, rounded up).
func (g *Guard) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := int(math.Ceil(wait.Seconds()))
	g.o.Log.Warn("workspace: a login refused: too many wrong attempts", "from", g.client(r), "retry_after", secs)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	g.o.Pages.Refuse(w, r, http.StatusTooManyRequests, fmt.Errorf("too many wrong logins from this address or for this user: try again in %d s", secs))
}
