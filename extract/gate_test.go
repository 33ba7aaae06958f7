package extract

import (
	"context"
	"slices"
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

func TestGateServesHigherPriorityFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(1, RealClock{})
		if err := g.Acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
		order := make(chan int, 4)
		for _, p := range []int{1, 5, 3, 5} {
			go func() {
				if err := g.Acquire(WithPriority(context.Background(), p)); err != nil {
					t.Error(err)
					return
				}
				order <- p
				time.Sleep(time.Second)
				g.Release()
			}()
			synctest.Wait()
		}
		g.Release()
		var got []int
		for range 4 {
			got = append(got, <-order)
		}
		if want := []int{5, 5, 3, 1}; !slices.Equal(got, want) {
			t.Errorf("served %v, want %v", got, want)
		}
		time.Sleep(2 * time.Second) // the last one releases
	})
}

func TestGateWaiterGivingUpLetsLowerPriorityIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(1, RealClock{})
		g.Acquire(context.Background())
		ctx, cancel := context.WithCancel(context.Background())
		high := make(chan error, 1)
		go func() { high <- g.Acquire(WithPriority(ctx, 9)) }()
		synctest.Wait()
		low := make(chan error, 1)
		go func() { low <- g.Acquire(WithPriority(context.Background(), 2)) }()
		synctest.Wait()
		cancel()
		if err := <-high; err == nil {
			t.Fatal("a cancelled waiter got a place")
		}
		g.Release()
		if err := <-low; err != nil {
			t.Fatal(err)
		}
	})
}
