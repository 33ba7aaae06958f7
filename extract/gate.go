package extract

import (
	"context"
	"sync"
	"time"
)

// Gate bounds the requests in flight. On a 429 it halves its limit and
// holds every request back until Retry-After has passed; each run of
// successful requests as long as the limit raises it by one again, up to
// the configured bound (additive increase, multiplicative decrease).
//
// A free place goes to a waiting request of the highest priority (see
// WithPriority); among equals, to whichever wakes first.
type Gate struct {
	clock Clock
	max   int

	mu         sync.Mutex
	limit      int
	inFlight   int
	successes  int
	pauseUntil time.Time
	changed    chan struct{} // closed and replaced whenever a waiter may proceed
	waiting    map[int]int   // priority -> requests waiting with it
	top        int           // the highest priority waiting, when any is
}

type priorityKey struct{}

// WithPriority gives the requests made with ctx a priority at the gate:
// higher goes first. The walker gives a page the number of pages of its
// collection. Without one, a request has priority 0.
func WithPriority(ctx context.Context, p int) context.Context {
	return context.WithValue(ctx, priorityKey{}, p)
}

func priority(ctx context.Context) int {
	p, _ := ctx.Value(priorityKey{}).(int)
	return p
}

// NewGate allows up to max requests at once.
func NewGate(max int, clock Clock) *Gate {
	return &Gate{clock: clock, max: max, limit: max, changed: make(chan struct{}), waiting: map[int]int{}}
}

// Acquire waits for a place, or returns ctx's error.
func (g *Gate) Acquire(ctx context.Context) error {
	prio := priority(ctx)
	g.mu.Lock()
	g.wait(prio)
	for {
		pause := g.pauseUntil.Sub(g.clock.Now())
		if pause <= 0 && g.inFlight < g.limit && prio >= g.top {
			g.inFlight++
			g.done(prio)
			g.mu.Unlock()
			return nil
		}
		changed := g.changed
		g.mu.Unlock()
		var err error
		if pause > 0 {
			err = g.clock.Sleep(ctx, pause)
		} else {
			select {
			case <-changed:
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		g.mu.Lock()
		if err != nil {
			g.done(prio)
			g.mu.Unlock()
			return err
		}
	}
}

// wait counts a request waiting with priority p.
func (g *Gate) wait(p int) {
	if len(g.waiting) == 0 || p > g.top {
		g.top = p
	}
	g.waiting[p]++
}

// done uncounts a waiting request of priority p; when it was the last of
// the top priority, the next one down may proceed.
func (g *Gate) done(p int) {
	if g.waiting[p]--; g.waiting[p] > 0 {
		return
	}
	delete(g.waiting, p)
	if p != g.top {
		return
	}
	first := true
	for q := range g.waiting {
		if first || q > g.top {
			g.top, first = q, false
		}
	}
	g.broadcast()
}

// Release gives a place back.
func (g *Gate) Release() {
	g.mu.Lock()
	g.inFlight--
	g.broadcast()
	g.mu.Unlock()
}

// Throttle halves the limit (to at least 1) and pauses new requests for
// retryAfter.
func (g *Gate) Throttle(retryAfter time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.limit = max(1, g.limit/2)
	g.successes = 0
	if until := g.clock.Now().Add(retryAfter); until.After(g.pauseUntil) {
		g.pauseUntil = until
	}
}

// Success counts a request the service accepted; after as many as the
// limit, the limit grows by one.
func (g *Gate) Success() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.limit >= g.max {
		return
	}
	if g.successes++; g.successes >= g.limit {
		g.limit++
		g.successes = 0
		g.broadcast()
	}
}

// Limit is the current number of places.
func (g *Gate) Limit() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.limit
}

func (g *Gate) broadcast() {
	close(g.changed)
	g.changed = make(chan struct{})
}
