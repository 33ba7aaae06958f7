package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// Open takes the directory's export lock (waiting up to lock_wait),
// adopts a store of an earlier billsnap, and finishes or cleans up what an
// interrupted run left. A store opened so can take a snapshot.
func Open(ctx context.Context, cfg storeconfig.Options, log *slog.Logger, now func() time.Time) (*Store, error) {
	s, err := newStore(cfg, log, now)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.at.Private(), 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	if s.lock, err = state.Lock(layout.Dir(cfg.Out).ExportLock(), cfg.LockWait); err != nil {
		return nil, err
	}
	err = s.adopt(ctx)
	if err == nil {
		err = s.Update(ctx, func(sec *Section) error { return s.recover(ctx, sec) })
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// OpenShared opens the directory to reconcile and report, without the
// export lock: an export may be under way, and neither waits for the
// other but for the state's brief sections. The directory must hold a
// store.
func OpenShared(ctx context.Context, cfg storeconfig.Options, log *slog.Logger, now func() time.Time) (*Store, error) {
	s, err := newStore(cfg, log, now)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(s.at.State()); err != nil {
		if _, err := os.Stat(s.publicPath); err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.Out, ErrNoStore)
		}
		// A store of an earlier billsnap: migrated under the export lock.
		s.Close()
		return Open(ctx, cfg, log, now)
	}
	return s, nil
}

// Exists reports whether cfg.Out holds a store: billsnap's state, or the
// read model of an earlier billsnap. It creates nothing. A store opened
// but never published has its state and no read model yet (a new store's
// is made by its first snapshot, published or failed): OpenRead finds
// none there (ErrNoStore).
func Exists(cfg storeconfig.Options) bool {
	at := layout.Dir(cfg.Out)
	return exists(at.State()) || exists(at.Under(cfg.DuckDB.File))
}

// exists tells whether path is there (a link, not followed).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// ErrNoStore is a directory where no billsnap has published anything
// (readmodel.ErrNoStore).
var ErrNoStore = readmodel.ErrNoStore

// OpenRead opens the database readers see, read-only: what the last
// publish left (readmodel.Open). It is ErrNoStore (wrapped, naming the
// path) when there is none.
func OpenRead(ctx context.Context, cfg storeconfig.Options) (*sql.DB, error) {
	return readmodel.Open(ctx, layout.Dir(cfg.Out).Under(cfg.DuckDB.File))
}

// adopt makes billsnap's state when a directory has a published database
// but no state, with the export lock held (migrate.Adopt: a store of an
// earlier billsnap is migrated; a read model whose state is gone gives
// the state back). The state is built beside its place and renamed into
// it last, so a crash before leaves the directory to adopt again.
func (s *Store) adopt(ctx context.Context) error {
	if _, err := os.Stat(s.at.State()); err == nil {
		return nil
	}
	if _, err := os.Stat(s.publicPath); err != nil {
		return nil // a new store
	}
	// A reconcile may open the store as soon as the state is there: it
	// waits for this lock until the adopted store is published.
	lock, err := s.stateFile().TakeLock()
	if err != nil {
		return err
	}
	defer lock.Close()
	tmp := s.at.State() + ".adopting"
	os.Remove(tmp)
	os.Remove(tmp + ".wal")
	db, err := state.OpenFile(tmp, stateSettings(s.duck), state.BlockSize)
	if err != nil {
		return err
	}
	// The adopted state is not a section of one (there is none yet to
	// copy), but what it builds is shown as a section's is.
	sec := &Section{st: &state.Tx{DB: db}}
	err = migrate.Adopt(ctx, db, migrate.Adoption{At: s.at, Public: s.publicPath, Tables: s.tables, Tree: s.tree, Log: s.log},
		adoption{s: s, sec: sec})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("adopting %s: %w", s.publicPath, err)
	}
	if err := s.markPending(sec); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.at.State()); err != nil {
		return err
	}
	fileutil.SyncDir(s.at.Private())
	return s.publishPending(sec)
}

// adoption is the store's publish steps in section sec, whose state an
// adoption fills (migrate.Publisher).
type adoption struct {
	s   *Store
	sec *Section
}

func (a adoption) PublishIncomplete(id string) error { return a.s.publishParquet(a.s.incomplete, id) }

func (a adoption) EmptyModel(ctx context.Context, path string) error {
	return a.s.model().Empty(ctx, a.sec.DB(), path)
}

func (a adoption) PublishModel(ctx context.Context, path, latest string) error {
	if err := a.s.buildRecords(ctx, a.sec); err != nil {
		return err
	}
	return a.s.publishModel(ctx, a.sec, path, latest)
}

// ReadAsOf makes db, a read model from OpenRead holding one connection,
// read the store of cfg as it stood at ts: every latest_<table> a
// temporary view of the table then (readmodel.ReadAsOf).
func ReadAsOf(ctx context.Context, db *sql.DB, cfg storeconfig.Options, ts time.Time) error {
	tables, err := catalog.ApplyFields(cfg.Fields)
	if err != nil {
		return err
	}
	return readmodel.ReadAsOf(ctx, db, ts, layout.Dir(cfg.Out).Records(), tables)
}
