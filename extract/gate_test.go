package extract

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The gate is tested in a synctest bubble: its clock is the bubble's fake
// time, so waits of seconds take none.

func TestGateBoundsRequestsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(3, RealClock{})
		var in, peak atomic.Int32
		for range 20 {
			go func() {
				if err := g.Acquire(context.Background()); err != nil {
					t.Error(err)
					return
				}
				if n := in.Add(1); n > peak.Load() {
					peak.Store(n)
				}
				time.Sleep(time.Second)
				in.Add(-1)
				g.Release()
			}()
		}
		synctest.Wait()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if peak.Load() != 3 || in.Load() != 0 {
			t.Errorf("peak %d in flight (want 3), %d left", peak.Load(), in.Load())
		}
	})
}

func TestGateThrottleHalvesPausesAndRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(8, RealClock{})
		g.Throttle(5 * time.Second)
		if g.Limit() != 4 {
			t.Fatalf("limit %d after one 429, want 4", g.Limit())
		}
		start := time.Now()
		if err := g.Acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 5*time.Second {
			t.Errorf("waited %s, want Retry-After 5s", waited)
		}
		g.Release()
		g.Throttle(0)
		g.Throttle(0)
		g.Throttle(0)
		if g.Limit() != 1 {
			t.Fatalf("limit %d, want it to stop at 1", g.Limit())
		}
		for range 1 + 2 + 3 + 4 + 5 + 6 + 7 {
			g.Success()
		}
		if g.Limit() != 8 {
			t.Errorf("limit %d after recovery, want 8", g.Limit())
		}
		g.Success()
		if g.Limit() != 8 {
			t.Errorf("limit %d grew past the bound", g.Limit())
		}
	})
}

func TestGateAcquireEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(1, RealClock{})
		g.Acquire(context.Background())
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := g.Acquire(ctx); err != context.DeadlineExceeded {
			t.Errorf("Acquire on a full gate: %v", err)
		}
		g.Throttle(time.Hour)
		if err := g.Acquire(ctx); err != context.DeadlineExceeded {
			t.Errorf("Acquire while paused: %v", err)
		}
	})
}
