package job

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Func is a job's work in its open store.
type Func func(context.Context, *snapshot.Store) (Outcome, error)

// InStore runs fn as job j in cfg's store (Do): a job whose Spec declares
// ExportLock opens the store with its export lock, waiting up to
// lock_wait; any other works beside an export, in sections of the state.
// A run that found no directory and never reached the service
// (ErrUnreached) leaves none: it removes the one it made, its record with
// it.
// metrics, when not nil, is refreshed after the run (for /metrics) and
// keeps the runs the journal could not take until a run can write them.
func InStore(ctx context.Context, cfg config.Config, j Spec, log *slog.Logger, redact func(string) string, metrics *schedule.Metrics, fn Func) (Outcome, error) {
	open := snapshot.OpenShared
	if j.ExportLock {
		open = snapshot.Open
	}
	var store *snapshot.Store // what env.Open opened, for fn
	env := Env{
		Open: func(ctx context.Context) (Opened, error) {
			s, err := open(ctx, cfg.Options, log, time.Now)
			if err != nil {
				return nil, err
			}
			store = s
			return s, nil
		},
		ReadModel: func(ctx context.Context) (*sql.DB, error) { return snapshot.OpenRead(ctx, cfg.Options) },
		Out:       layout.Dir(cfg.Out), MetricsFile: metricsPath(cfg), Metrics: metrics, Log: log, Now: time.Now, Redact: redact,
		Notify: Notifier(cfg, log, redact),
	}
	_, statErr := os.Stat(cfg.Out)
	out, err := Do(ctx, env, j, func(ctx context.Context, _ Opened) (Outcome, error) {
		return fn(ctx, store)
	})
	if errors.Is(statErr, fs.ErrNotExist) && errors.Is(err, ErrUnreached) {
		// There was no store, and nothing came to make one: the directory
		// this run made (its record included) would only be litter.
		if rmErr := os.RemoveAll(cfg.Out); rmErr != nil {
			log.Warn("removing the directory of a run that never reached the service", "dir", cfg.Out, "error", rmErr)
		}
	}
	return out, err
}

// Notifier is the notifier of cfg's notify section for its store; nil
// when it names no target.
func Notifier(cfg config.Config, log *slog.Logger, redact func(string) string) *notify.Notifier {
	return notify.New(cfg.Notify, notify.Where{Out: cfg.Out, ReportsDir: filepath.Join(cfg.Out, cfg.Reports.Dir), Log: log,
		Now: time.Now, Getenv: os.Getenv, Redact: redact, LastComplete: func(ctx context.Context) (string, time.Time, error) {
			return lastComplete(ctx, cfg)
		}})
}

// lastComplete is the newest complete snapshot of cfg's store and when
// it finished; "" when there is none.
func lastComplete(ctx context.Context, cfg config.Config) (string, time.Time, error) {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return "", time.Time{}, err
	}
	defer db.Close()
	return readmodel.LastComplete(ctx, db)
}

func metricsPath(cfg config.Config) string {
	if cfg.MetricsFile == "" {
		return ""
	}
	return filepath.Join(cfg.Out, cfg.MetricsFile)
}

// PrimeMetrics computes the metrics of the runs so far in cfg's store, so
// that /metrics has them before the first scheduled run.
func PrimeMetrics(ctx context.Context, cfg config.Config, m *schedule.Metrics, log *slog.Logger) {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		log.Debug("metrics at start: the runs only", "error", err)
		db = nil
	} else {
		defer db.Close()
	}
	if err := m.Refresh(ctx, layout.Dir(cfg.Out), metricsOf(db), time.Now()); err != nil {
		log.Debug("metrics at start", "error", err)
	}
}
