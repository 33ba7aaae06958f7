package schedule

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// Store is the open output directory a job works in.
type Store interface {
	DB() *sql.DB
	Close() error
}

// Outcome is what a job reports besides its error.
type Outcome struct {
	Snapshot string // the snapshot it took or reconciled
	Material bool   // it found something material (exit 3)
	Note     string // why it is material, for people
}

// Job describes a run for the record.
type Job struct {
	Name     string // export, reconcile, run, report
	Schedule string // "" for a one-shot command
	Period   string
}

// Env is what Do needs besides the job.
type Env struct {
	Open        func(ctx context.Context) (Store, error) // opens the output directory, waiting for its lock
	MetricsFile string                                   // "" writes none
	Metrics     *Metrics                                 // refreshed after the run when not nil (for /metrics)
	Log         *slog.Logger
	Now         func() time.Time
	Redact      func(string) string // takes secrets out of recorded errors
}

// ErrPanic wraps a panic of a job, recovered.
var ErrPanic = errors.New("the job panicked")

// Do runs fn as job j: it opens the directory, records the run as running,
// calls fn, turns a panic into a failed run, records the outcome and
// refreshes the metrics file. It returns fn's error (or the panic as an
// error wrapping ErrPanic), and whether the outcome was material.
func Do(ctx context.Context, env Env, j Job, fn func(context.Context, Store) (Outcome, error)) (Outcome, error) {
	store, err := env.Open(ctx)
	if err != nil {
		return Outcome{}, err
	}
	defer store.Close()
	r := &Run{Started: env.Now().UTC(), Job: j.Name, Schedule: j.Schedule, Period: j.Period}
	if err := start(ctx, store.DB(), r); err != nil {
		return Outcome{}, fmt.Errorf("recording the run: %w", err)
	}
	out, err := guarded(ctx, store, fn)
	r.Finished, r.Snapshot = env.Now().UTC(), out.Snapshot
	r.Status, r.ExitCode = classify(ctx, out, err)
	if err != nil {
		r.Error = env.Redact(err.Error())
	}
	if ferr := finish(store.DB(), r); ferr != nil {
		env.Log.Error("recording the end of a run", "job", j.Name, "error", ferr)
	}
	env.refreshMetrics(store.DB())
	return out, err
}

// refreshMetrics recomputes the metrics after a run and writes the textfile.
func (env Env) refreshMetrics(db *sql.DB) {
	m := env.Metrics
	if m == nil {
		m = NewMetrics()
	}
	if err := m.Refresh(context.Background(), db, env.Now()); err != nil {
		env.Log.Error("computing the metrics", "error", err)
		return
	}
	if env.MetricsFile == "" {
		return
	}
	if err := m.WriteTextfile(env.MetricsFile); err != nil {
		env.Log.Error("writing the metrics file", "path", env.MetricsFile, "error", err)
	}
}

// guarded calls fn, turning a panic into an error with its stack.
func guarded(ctx context.Context, store Store, fn func(context.Context, Store) (Outcome, error)) (out Outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v\n%s", ErrPanic, p, debug.Stack())
		}
	}()
	return fn(ctx, store)
}

// classify maps a job's result to its status and exit code.
func classify(ctx context.Context, out Outcome, err error) (string, int) {
	switch {
	case err == nil && out.Material:
		return StatusMaterial, 3
	case err == nil:
		return StatusOK, 0
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return StatusInterrupted, 130
	}
	return StatusFailed, 1
}
