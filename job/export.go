package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/ingest"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// Service is what an export needs besides the configuration.
type Service struct {
	Secret   *extract.Secret
	Log      *slog.Logger
	Clock    extract.Clock    // what retries and re-walks wait on
	Progress extract.Progress // nil: none
	Lake     LakePublisher    // levels the lake after an export with parquet.url; nil: no lake
}

// walker is the client and walker of cfg's service, as an export has
// them: its gate, retries, redaction and origins. A URL the client cannot
// use is a usage error.
func (svc Service) walker(cfg config.Config) (*extract.Walker, error) {
	client, err := extract.NewClient(extract.Options{BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Secret: svc.Secret,
		Concurrency: cfg.Concurrency, Timeout: cfg.Timeout, Retry: cfg.Retry, Log: svc.Log, Clock: svc.Clock})
	if err != nil {
		return nil, usage.Wrap(err)
	}
	w := &extract.Walker{Client: client, BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Prefetch: cfg.Prefetch,
		MaxRewalks: cfg.MaxRewalks, Log: svc.Log, Progress: svc.Progress, Clock: svc.Clock}
	w.Limits = cfg.Export.Limits(w.Now())
	return w, nil
}

// ErrUnreached is in the error of an export that took nothing from the
// service: it never had an answer (a wrong URL, a service down, no
// network), or its snapshot could not begin, which stops the walks it
// started.
var ErrUnreached = errors.New("the service was never reached")

// unreached is an export's error when it took nothing; its text is the
// error's own.
type unreached struct{ error }

func (u unreached) Unwrap() error        { return u.error }
func (u unreached) Is(target error) bool { return target == ErrUnreached }

// requestsOf is what the requests of client met.
func requestsOf(client *extract.Client) journal.Requests {
	st := client.Stats()
	return journal.Requests{Retries: st.Retries, Throttles: st.Throttles}
}

// Export walks the service into a new snapshot of store, logs what its
// fields received otherwise than assumed, applies retention, and brings
// the object storage of parquet.url, when set, level with the store. It
// returns the snapshot's summary — nil when no snapshot was taken; an
// error of retention comes with the summary — and, whatever happened, what
// the requests to the service met.
func Export(ctx context.Context, cfg config.Config, svc Service, store *snapshot.Store) (*snapshot.Summary, journal.Requests, error) {
	colls, err := catalog.Collections(cfg.Collections)
	if err != nil {
		return nil, journal.Requests{}, err
	}
	w, err := svc.walker(cfg)
	if err != nil {
		return nil, journal.Requests{}, err
	}
	sum, begun, err := take(ctx, store, w, colls)
	req := requestsOf(w.Client)
	if err != nil && (!begun || w.Client.Stats().Answers == 0) {
		err = unreached{err}
	}
	if err != nil {
		return nil, req, err
	}
	logFields(svc.Log, manifest.Notes(sum.Fields, sum.Tables))
	err = retain(ctx, cfg, svc, store)
	if err == nil && cfg.Retention.Keep > 0 {
		err = pruneJournal(ctx, cfg)
	}
	if err == nil && cfg.Parquet.URL != "" {
		err = svc.publishLake(ctx, cfg, store)
	}
	return sum, req, err
}

// take walks every collection into a new snapshot of store and publishes
// it; a snapshot whose walk fails is recorded as failed. The walks start
// while the snapshot begins (ingest.Later): the first pages are on their
// way while its state is recorded and its DuckDB file made. When it
// cannot begin (begun false), the walks are stopped and no snapshot is
// on record, as if none had started.
func take(ctx context.Context, store *snapshot.Store, w *extract.Walker, colls []catalog.Collection) (sum *snapshot.Summary, begun bool, err error) {
	later := ingest.NewLater()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	walked := make(chan error, 1)
	go func() { walked <- ingest.Walk(wctx, w, colls, later) }()
	run, err := store.Begin(ctx, snapshot.Meta{BaseURL: w.BaseURL, FrontURL: w.FrontURL})
	if err != nil {
		stop()
		later.Abandon()
		<-walked
		return nil, false, err
	}
	later.Set(run)
	sum, err = run.Finish(ctx, <-walked, w.Client.Redact)
	return sum, true, err
}

// ExportOutcome is the outcome of an export (sum nil: none was taken) and
// its requests: an incomplete snapshot is material.
func ExportOutcome(sum *snapshot.Summary, req journal.Requests) Outcome {
	out := Outcome{Requests: req}
	if sum == nil {
		return out
	}
	out.Snapshot = sum.ID
	if sum.Status != snapshot.StatusComplete {
		out.Material, out.Note = true, fmt.Sprintf("snapshot %s is incomplete: it is kept in DuckDB for inspection but not published", sum.ID)
	}
	return out
}

// logFields tells the log what a snapshot received otherwise than its
// columns' types, and what never arrived.
func logFields(log *slog.Logger, n manifest.FieldNotes) {
	for _, f := range n.Drifted {
		if f.Coerced+f.Untyped > 0 {
			log.Warn("field arrived in another JSON type", "table", f.Table, "field", f.Field, "column", f.Column, "types", f.TypesText(),
				"coerced", f.Coerced, "untyped", f.Untyped, "example", f.Example)
		}
	}
	for _, fs := range [][]manifest.FieldStats{n.Drifted, n.New} {
		for _, f := range fs {
			if f.Twice > 0 {
				log.Warn("field sent twice in a record: the first kept, in its column and in _raw", "table", f.Table, "field", f.Field,
					"column", f.Column, "records", f.Twice, "example", f.Example)
			}
			if f.Deep > 0 {
				log.Warn("field nested deeper than 1000 levels: its records' _raw kept as text (a JSON string)", "table", f.Table, "field", f.Field,
					"column", f.Column, "records", f.Deep, "example", f.Example)
			}
			if f.Repaired > 0 {
				log.Warn("field arrived as text not valid UTF-8: repaired", "table", f.Table, "field", f.Field, "column", f.Column,
					"repaired", f.Repaired, "example", f.Example)
			}
		}
	}
	for _, f := range n.Absent {
		log.Warn("field never arrived", "table", f.Table, "field", f.Field, "column", f.Column)
	}
	for _, f := range n.New {
		log.Info("field without a typed column, kept in _raw", "table", f.Table, "field", f.Field, "records", f.Received())
	}
}

// pruneJournal applies the journal's retention (journal.Retain) after
// the store's: to the runs and the deliveries of notifications from
// before the oldest complete snapshot the store keeps.
func pruneJournal(ctx context.Context, cfg config.Config) error {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return err
	}
	defer db.Close()
	oldest, err := readmodel.OldestComplete(ctx, db)
	if err != nil || oldest.IsZero() {
		return err
	}
	out := layout.Dir(cfg.Out)
	return journal.Retain(out.Runs(), out.Notifications(), oldest, cfg.Retention.Runs, time.Now())
}

// retain applies the retention: the newest complete snapshots kept, and
// every snapshot a close's evidence names (closedSnapshots); history's
// steps older than retention.history pruned when it says so.
func retain(ctx context.Context, cfg config.Config, svc Service, store *snapshot.Store) error {
	if cfg.Retention.Keep > 0 {
		closed, err := closedSnapshots(cfg.Out)
		if err != nil {
			// Which snapshots a close stands on is not known: none is pruned.
			svc.Log.Warn("retention: no snapshot is pruned", "error", err)
		} else if err := pruneSnapshots(ctx, cfg, svc, store, closed); err != nil {
			return err
		}
	}
	d, prunes, _ := cfg.Retention.HistoryFor() // validated with the configuration
	if !prunes {
		return nil
	}
	forgot, err := store.PruneHistory(ctx, time.Now().Add(-d))
	if len(forgot) > 0 {
		svc.Log.Info("retention: deleted history's old steps", "history", cfg.Retention.History, "snapshots", len(forgot))
	}
	return err
}

// pruneSnapshots keeps the newest complete snapshots, and those of
// closed, and deletes the others.
func pruneSnapshots(ctx context.Context, cfg config.Config, svc Service, store *snapshot.Store, closed []string) error {
	pruned, err := store.Prune(ctx, cfg.Retention.Keep, closed...)
	if len(pruned) > 0 {
		svc.Log.Info("retention: deleted old snapshots", "keep", cfg.Retention.Keep, "deleted", strings.Join(pruned, ", "))
	}
	return err
}

// closedSnapshots are the snapshots the closes of the ledger name, which
// their evidence packs stand on: retention keeps them.
func closedSnapshots(out string) ([]string, error) {
	entries, err := ledger.New(layout.Dir(out).Ledger(), time.Now).Read()
	if err != nil {
		return nil, fmt.Errorf("retention: reading the ledger's closes: %w", err)
	}
	var ids []string
	for _, c := range ledger.Fold(entries).Closes {
		ids = append(ids, c.Snapshot)
	}
	return ids, nil
}
