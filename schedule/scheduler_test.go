package schedule

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fires records when each schedule's runs began.
type fires struct {
	mu sync.Mutex
	at map[string][]time.Duration
	t0 time.Time
}

func (f *fires) add(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at[name] = append(f.at[name], time.Since(f.t0))
}

// runFor runs the schedules for d of the bubble's fake time.
func runFor(t *testing.T, specs []Schedule, d time.Duration, run func(context.Context, Schedule)) string {
	var logs bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(ctx, specs, run, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		s.Run(ctx)
		close(done)
	}()
	time.Sleep(d)
	cancel()
	<-done
	return logs.String()
}

func minutes(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Minute
	}
	return out
}

func TestSchedulesFireWhenTheyShould(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fires{at: map[string][]time.Duration{}, t0: time.Now()} // 2000-01-01 00:00 UTC
		specs := []Schedule{
			{Name: "every20", Spec: "@every 20m", Job: "export"},
			{Name: "hourly", Spec: "0 * * * *", Job: "run"},
			{Name: "copenhagen", Spec: "CRON_TZ=Europe/Copenhagen 30 2 * * *", Job: "run"}, // 01:30 UTC in winter
		}
		runFor(t, specs, 2*time.Hour+time.Minute, func(_ context.Context, s Schedule) { f.add(s.Name) })
		want := map[string][]time.Duration{"every20": minutes(20, 40, 60, 80, 100, 120), "hourly": minutes(60, 120), "copenhagen": minutes(90)}
		for name, w := range want {
			if got := f.at[name]; !equal(got, w) {
				t.Errorf("%s fired at %v, want %v", name, got, w)
			}
		}
	})
}

func equal(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestARunStillRunningMakesTheNextOneSkip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fires{at: map[string][]time.Duration{}, t0: time.Now()}
		logs := runFor(t, []Schedule{{Name: "slow", Spec: "@every 1m", Job: "run"}}, 10*time.Minute+time.Second,
			func(ctx context.Context, s Schedule) {
				f.add(s.Name)
				select {
				case <-time.After(150 * time.Second):
				case <-ctx.Done():
				}
			})
		if got := f.at["slow"]; !equal(got, minutes(1, 4, 7, 10)) {
			t.Errorf("runs began at %v, want 1m 4m 7m 10m", got)
		}
		if n := strings.Count(logs, "skipped a run"); n != 6 {
			t.Errorf("%d skips logged, want 6:\n%s", n, logs)
		}
	})
}

func TestAPanicIsRecoveredAndTheScheduleGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fires{at: map[string][]time.Duration{}, t0: time.Now()}
		logs := runFor(t, []Schedule{{Name: "fragile", Spec: "@every 1m", Job: "run"}}, 3*time.Minute+time.Second,
			func(_ context.Context, s Schedule) {
				f.add(s.Name)
				if len(f.at[s.Name]) == 1 {
					panic("boom")
				}
			})
		if got := f.at["fragile"]; !equal(got, minutes(1, 2, 3)) || !strings.Contains(logs, "cron: panic") || !strings.Contains(logs, "boom") {
			t.Errorf("runs %v; logs:\n%s", got, logs)
		}
	})
}

// On shutdown the run under way sees its context end, and nothing new starts.
func TestShutdownCancelsTheRunAndStartsNoOther(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fires{at: map[string][]time.Duration{}, t0: time.Now()}
		var cancelledAt time.Duration
		runFor(t, []Schedule{{Name: "long", Spec: "@every 1m", Job: "run"}}, 90*time.Second, func(ctx context.Context, s Schedule) {
			f.add(s.Name)
			<-ctx.Done()
			cancelledAt = time.Since(f.t0)
		})
		if !equal(f.at["long"], minutes(1)) || cancelledAt != 90*time.Second {
			t.Errorf("runs %v, cancelled at %s", f.at["long"], cancelledAt)
		}
	})
}

func TestNextFires(t *testing.T) {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	next, err := NextFires([]Schedule{{Name: "n", Spec: "CRON_TZ=Europe/Copenhagen 30 2 * * *"}, {Name: "d", Spec: "@daily"}}, now)
	if err != nil || !next[0].At.Equal(time.Date(2026, 11, 23, 1, 30, 0, 0, time.UTC)) || !next[1].At.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("%+v %v", next, err)
	}
}
