package schedule

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/billsnap/billsnap/internal/heaptrim"
)

// Scheduler runs jobs on their cron specs until its context ends.
type Scheduler struct {
	cron *cron.Cron
	log  *slog.Logger
}

// New schedules every spec; run is called with a context that ends on
// shutdown. A run of a schedule is skipped while its last run still runs,
// and a panic that escapes run is recovered and logged. After each run the
// C heap is given back to the kernel (heaptrim.Release), since the process
// waits for the next.
func New(ctx context.Context, specs []Schedule, run func(context.Context, Schedule), log *slog.Logger) (*Scheduler, error) {
	logger := cronLog{log}
	// Recover goes inside SkipIfStillRunning: outside, a panic would skip
	// the release of Skip's token, and the schedule would never run again
	// (cron v3.0.1's SkipIfStillRunning releases it without a defer).
	c := cron.New(cron.WithParser(cronParser), cron.WithLogger(logger),
		cron.WithChain(cron.SkipIfStillRunning(logger), cron.Recover(logger)))
	for _, s := range specs {
		if _, err := c.AddFunc(s.Spec, func() { defer heaptrim.Release(); run(ctx, s) }); err != nil {
			return nil, fmt.Errorf("schedule %s: %w", s.Name, err)
		}
	}
	return &Scheduler{cron: c, log: log}, nil
}

// Run starts the schedules and blocks until ctx ends; then no run starts,
// and Run returns when the runs under way have returned (their context has
// ended too).
func (s *Scheduler) Run(ctx context.Context) {
	s.cron.Start()
	<-ctx.Done()
	s.log.Info("stopping: no new runs; waiting for the run under way")
	<-s.cron.Stop().Done()
}

// cronLog sends cron's logging to slog: its routine chatter at debug, a
// skipped run as a warning, errors (a recovered panic) as errors.
type cronLog struct{ log *slog.Logger }

func (l cronLog) Info(msg string, kv ...any) {
	if msg == "skip" {
		l.log.Warn("skipped a run: the last run of this schedule is still running", kv...)
		return
	}
	l.log.Debug("cron: "+msg, kv...)
}

func (l cronLog) Error(err error, msg string, kv ...any) {
	l.log.Error("cron: "+msg, append(kv, "error", err)...)
}

// Next is a schedule's next fire time.
type Next struct {
	Schedule
	At time.Time
}

// NextFires returns when each schedule fires next after now.
func NextFires(specs []Schedule, now time.Time) ([]Next, error) {
	var out []Next
	for _, s := range specs {
		sched, err := cronParser.Parse(s.Spec)
		if err != nil {
			return nil, fmt.Errorf("schedule %s: %w", s.Name, err)
		}
		out = append(out, Next{Schedule: s, At: sched.Next(now)})
	}
	return out, nil
}
