package job

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/schedule"
)

// Opened is the open output directory a job works in.
type Opened interface {
	Close() error
}

// Spec describes a run: for the record, and how it opens the store.
type Spec struct {
	Name     string // export, reconcile, run, report
	Schedule string // "" for a one-shot command
	Period   string
	// ExportLock says the job takes the store's export lock (InStore),
	// waiting up to lock_wait for another to leave: a job that walks the
	// service or writes to it. Without it, the job works beside an
	// export, in sections of the state.
	ExportLock bool
}

// Env is what Do needs besides the job.
type Env struct {
	Open        func(ctx context.Context) (Opened, error)  // opens the output directory, waiting for its lock
	ReadModel   func(ctx context.Context) (*sql.DB, error) // the store's read model, for the metrics; nil: the runs' metrics only
	Out         layout.Dir                                 // the output directory, whose journal records the run
	MetricsFile string                                     // "" writes none
	Metrics     *schedule.Metrics                          // refreshed after the run (for /metrics); keeps the runs the journal could not take; nil: one for this run only
	Log         *slog.Logger
	Now         func() time.Time
	Redact      func(string) string // takes secrets out of recorded errors
	Notify      *notify.Notifier    // told of the run's end; nil: no notifications
}

// ErrPanic wraps a panic of a job, recovered.
var ErrPanic = errors.New("the job panicked")

// Do runs fn as job j. The run is on record in the journal from before it
// opens the directory (and waits for its lock) to its end, with a
// heartbeat meanwhile: a run refused by the lock or failed at start is
// recorded like any other, and one killed is read as killed. A panic of fn
// becomes a failed run. It refreshes the metrics file after the run, and
// returns fn's error (or the panic as an error wrapping ErrPanic) with the
// outcome.
//
// A run the journal cannot take (a disk full or read-only) is still on
// record: when its start cannot be written, fn does not run and the run
// fails (exit 1); when its end cannot, it ends as fn did. Either way the
// run is kept in the metrics' backlog (Metrics.Unrecorded), counted in the
// metrics, told to the notifications and logged, and written into the
// journal by the next run that can write, before its own start.
func Do(ctx context.Context, env Env, j Spec, fn func(context.Context, Opened) (Outcome, error)) (Outcome, error) {
	if env.Metrics == nil {
		env.Metrics = schedule.NewMetrics()
	}
	backlog := env.Metrics.Unrecorded()
	if n, _ := backlog.Pending(); n > 0 {
		if err := backlog.Flush(env.Out.Runs()); err != nil {
			env.Log.Debug("the runs not on record still cannot be written", "error", err)
		} else {
			env.Log.Info("runs that could not be recorded are now in the journal", "runs", n)
		}
	}
	begin := journal.Run{Job: j.Name, Schedule: j.Schedule, Period: j.Period}
	entry, err := journal.New(env.Out.Runs(), env.Now).Start(begin)
	if err != nil {
		return Outcome{}, env.unrecorded(ctx, begin, err)
	}
	stop := entry.KeepAlive(journal.Beat)
	var store Opened
	out, err := guarded(ctx, func(ctx context.Context) (Outcome, error) {
		if store, err = env.Open(ctx); err != nil {
			return Outcome{}, err
		}
		return fn(ctx, store)
	})
	stop()
	status, code := classify(ctx, out, err)
	var text string
	switch {
	case status == journal.Interrupted:
		text = Interruption(ctx, err)
	case err != nil:
		text = env.Redact(err.Error())
	}
	end := journal.End{Status: status, ExitCode: code, Snapshot: out.Snapshot, Error: text, Requests: out.Requests}
	if out.Report != nil {
		n := out.Report.OpenCount()
		end.Findings = &n
	}
	if ferr := entry.Finish(end); ferr != nil {
		env.Log.Error("recording the end of a run: kept in memory until the journal can take it", "job", j.Name, "error", ferr)
		backlog.Add(entry.Run(), ferr)
	}
	if store != nil {
		store.Close()
	}
	env.Notify.AfterRun(ctx, entry.Run(), out.Report)
	env.refreshMetrics(ctx)
	return out, err
}

// unrecorded ends a run whose start the journal could not take (err): it
// fails, is kept in the backlog, logged, told to the notifications and
// counted in the metrics. It returns the run's error.
func (env Env) unrecorded(ctx context.Context, begin journal.Run, err error) error {
	err = fmt.Errorf("recording the run: %w", err)
	run := journal.Unwritten(begin, env.Now(), ExitFailure, env.Redact(err.Error()))
	env.Metrics.Unrecorded().Add(run, err)
	env.Log.Error("the run could not be recorded: kept in memory until the journal can take it", "job", begin.Job, "error", run.Error)
	env.Notify.AfterRun(ctx, run, nil)
	env.refreshMetrics(ctx)
	return err
}

// refreshMetrics recomputes the metrics after a run (env.Metrics, set by
// Do) and writes the textfile.
func (env Env) refreshMetrics(ctx context.Context) {
	m := env.Metrics
	var db *sql.DB
	if env.ReadModel != nil {
		var err error
		if db, err = env.ReadModel(context.WithoutCancel(ctx)); err != nil {
			env.Log.Debug("metrics: the read model cannot be read; the runs' metrics only", "error", err)
			db = nil
		} else {
			defer db.Close()
		}
	}
	if err := m.Refresh(context.Background(), env.Out, metricsOf(db), env.Now()); err != nil {
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
func guarded(ctx context.Context, fn func(context.Context) (Outcome, error)) (out Outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v\n%s", ErrPanic, p, debug.Stack())
		}
	}()
	return fn(ctx)
}

// refusal is an error that means another billsnap held the directory.
type refusal interface{ Refused() bool }

// classify maps a job's result to its status in the journal and its exit
// code (ExitCode).
func classify(ctx context.Context, out Outcome, err error) (string, int) {
	code := ExitCode(ctx, Material(out, err))
	var r refusal
	switch {
	case code == ExitMaterial && out.Demo:
		return journal.Material, ExitOK
	case code == ExitMaterial:
		return journal.Material, code
	case code == ExitOK:
		return journal.OK, code
	case code == ExitInterrupted:
		return journal.Interrupted, code
	case errors.As(err, &r) && r.Refused():
		return journal.Refused, code
	}
	return journal.Failed, code
}
