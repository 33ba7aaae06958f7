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
type Gate struct {
	clock Clock
	max   int

	mu         sync.Mutex
	limit      int
	inFlight   int
	successes  int
	pauseUntil time.Time
	changed    chan struct{} // closed and replaced whenever a waiter may proceed
}

// NewGate allows up to max requests at once.
func NewGate(max int, clock Clock) *Gate {
	return &Gate{clock: clock, max: max, limit: max, changed: make(chan struct{})}
}

// Acquire waits for a place, or returns ctx's error.
func (g *Gate) Acquire(ctx context.Context) error {
	for {
		g.mu.Lock()
		pause := g.pauseUntil.Sub(g.clock.Now())
		if pause <= 0 && g.inFlight < g.limit {
			g.inFlight++
			g.mu.Unlock()
			return nil
		}
		changed := g.changed
		g.mu.Unlock()
		if pause > 0 {
			if err := g.clock.Sleep(ctx, pause); err != nil {
				return err
			}
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
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
