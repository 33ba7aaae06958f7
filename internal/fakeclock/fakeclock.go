// Package fakeclock is a clock for tests: it stands still until something
// sleeps on it, and then moves forward by the time slept, at once. Every
// sleep is remembered.
package fakeclock

import (
	"context"
	"sync"
	"time"
)

// Clock implements extract.Clock.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// New starts a clock at start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock forward by d and returns at once (ctx's error if
// it has ended).
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(max(d, 0))
	c.sleeps = append(c.sleeps, d)
	return ctx.Err()
}

// Slept lists every sleep so far.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}
