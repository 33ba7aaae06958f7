package snapshot

import (
	"log/slog"
	"os"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
	// DuckDB's trim of the C heap on every close is skipped in any program
	// that opens a store (the package says why).
	_ "github.com/billsnap/billsnap/internal/heaptrim"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// BusyError is an output directory another billsnap holds.
type BusyError = state.BusyError

// Snapshot statuses.
const (
	StatusRunning    = "running"    // being walked
	StatusPublishing = "publishing" // in DuckDB, Parquet being renamed into place
	StatusComplete   = "complete"
	StatusIncomplete = "incomplete" // a collection stayed inconsistent
	StatusFailed     = "failed"
)

// Store is an output directory; package layout names every path of it.
// Readers see these there, and billsnap never changes a file of them in
// place:
//
//	DIR/billsnap.duckdb     the read model: a new file renamed over the old
//	                        one when its latest snapshot changes
//	                        (latest_<table> tables, views over the rest)
//	DIR/parquet             the Parquet tree of complete snapshots, the system
//	                        of record: a snapshot's partitions renamed in
//	                        whole, and out by retention (tree)
//	DIR/incomplete          the Parquet tree of incomplete snapshots
//	DIR/records             billsnap's tables (the manifest, reconciliations,
//	                        runs), written anew at each publish, and the run
//	                        records' files, linked (runrec.Records)
//
// billsnap's own state lives apart, where no reader can lock it:
//
//	DIR/.billsnap/state.duckdb   the manifest, fields, reconciliations and
//	                             the run records' index: opened only by
//	                             billsnap, briefly, under
//	                             DIR/.billsnap/state.lock
//	DIR/.billsnap/history/       the run records: findings, unjudged and
//	                             rechecks, a file a run (runrec)
//	DIR/.billsnap/model.duckdb   the read model's private copy, which
//	                             reconcile reads
//	DIR/.billsnap/runs/          the journal of every run
//	DIR/billsnap.lock            one export at a time
type Store struct {
	tables     []catalog.Table // catalog.Tables, with the configuration's fields applied
	parquetDir string
	tree       tree.Tree // complete snapshots
	incomplete tree.Tree
	at         layout.Dir     // the output directory
	engine     *state.Engine  // where the sections and readings run
	runs       runrec.Files   // the run records' files
	recs       runrec.Records // what a publish writes of the state and the journal for readers
	publicPath string         // DIR/billsnap.duckdb
	pq         storeconfig.Parquet
	duck       storeconfig.DuckDB
	lock       *os.File      // the export lock; nil for a store opened to reconcile
	lockWait   time.Duration // lock_wait
	log        *slog.Logger
	now        func() time.Time
}

func newStore(cfg storeconfig.Options, log *slog.Logger, now func() time.Time) (*Store, error) {
	tables, err := catalog.ApplyFields(cfg.Fields)
	if err != nil {
		return nil, err
	}
	at := layout.Dir(cfg.Out)
	parquetDir := at.Under(cfg.Parquet.Dir)
	return &Store{tables: tables, parquetDir: parquetDir, tree: tree.New(parquetDir),
		incomplete: tree.New(at.Incomplete()), at: at, publicPath: at.Under(cfg.DuckDB.File),
		engine: state.NewEngine(stateSettings(cfg.DuckDB), at.StateTemp()), runs: runrec.New(at), recs: runrec.NewRecords(at, log, now),
		pq: cfg.Parquet, duck: cfg.DuckDB, lockWait: cfg.LockWait, log: log, now: now}, nil
}

// table is the store's table called name.
func (s *Store) table(name string) (catalog.Table, bool) { return catalog.Find(s.tables, name) }

// Dir is the output directory; ParquetDir is in it.
func (s *Store) Dir() string        { return string(s.at) }
func (s *Store) ParquetDir() string { return s.parquetDir }

// Tables are the store's tables, the configuration's fields applied.
func (s *Store) Tables() []catalog.Table { return s.tables }

// Close stops the engine of the store's sections and releases the export
// lock.
func (s *Store) Close() error {
	crashpoint.Hit("close")
	err := s.engine.Close()
	if s.lock != nil {
		s.lock.Close()
	}
	return err
}

// stateFile is the store's state, its lock and the engine its sections
// run in.
func (s *Store) stateFile() state.File {
	return state.File{Path: s.at.State(), Lock: s.at.StateLock(), Wait: s.lockWait, Engine: s.engine}
}
