// Package load loads a run's staged Parquet into its DuckDB file (its
// latest_ tables) while the service is still walked, and digests the IDs
// each table holds there. It imports nothing of package snapshot: it is
// handed the file, the tables, the staged files' list and DuckDB's load
// settings.
//
// [Start] starts a [Loader] with a [Target] (the file, the snapshot, the
// tables and the staged files' list) and its [Settings]. [Loader.Filled],
// [Loader.Dropped] and [Loader.Ended] are the walk's hooks; [Loader.Wait]
// waits for the loads and the steps (Target.Loaded), and [Loader.Table]
// says what was loaded of a table.
//
// A load or step that runs out of memory (state.OutOfMemory) runs again
// under a doubled limit, from duckdb.load_memory_limit up to
// duckdb.memory_limit, sizes read as the store's options check them
// (storeconfig.MemoryBytes); the loads and the steps each keep their own
// limits, in instances of their own (settings.go, a limiter).
//
// The digest (digest.go, a [Tally]) is the count and SHA-256 of a table's
// IDs, which the store checks before it publishes. It reads the IDs one
// range at a time, so that memory stays bounded.
package load

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Target is what a Loader loads: the run's DuckDB file and the snapshot
// whose rows it holds, the tables, and a table's staged files with their
// rows (read when its collection's walk has ended).
type Target struct {
	Ctx    context.Context
	DB     *sql.DB // the run's DuckDB file
	Snap   string  // the snapshot's ID, the rows' snapshot_id
	Tables []catalog.Table
	Staged func(table string) ([]string, int64)
	// Loaded, when set, is called for each table of an ended walk once it
	// is loaded and tallied, with the table's files as the walk left them:
	// what the run does with a table's rows as soon as they are all in
	// (history's step), reading those files only (a re-walk may be writing
	// more beside them). The calls are made one at a
	// time by a goroutine of their own, beside the loads that go on, in
	// StepDB, a DuckDB instance of their own, under the table's memory
	// limit there (a failure out of memory is run again under a higher
	// one). It may be called again for a table a re-walk loaded again;
	// the re-walk's files are dropped only once the calls before are done.
	Loaded func(table string, files []string) error
	StepDB *sql.DB // where Loaded runs, given its settings (Settings)
}

// Settings are DuckDB's settings for loading, as configured.
type Settings struct {
	LoadMemoryLimit string // duckdb.load_memory_limit: the limit loads start under
	MemoryLimit     string // duckdb.memory_limit: the most a load's limit is raised to
	LoadThreads     int    // duckdb.load_threads
	FSST            bool   // duckdb.fsst: false disables DuckDB's FSST compression
}

// Loader loads the staged Parquet into the run's DuckDB file (its latest_
// tables) while the service is still walked, so that little is left to do
// when the last walk ends: each part file a table finishes (every
// parquet.rows_per_file rows, Filled), and the rest of a collection's
// tables as soon as its walk has ended, when their IDs are counted for the
// walker (Ended). No reader sees the file before it is published. A
// re-walk drops what was loaded of its tables (Dropped). Jobs are done in
// the order they come, by one goroutine; the steps of the tables loaded,
// in the order they were loaded, by another.
type Loader struct {
	ids     snapshotIDs // the run's DuckDB file and its snapshot
	tables  []catalog.Table
	staged  func(table string) ([]string, int64)     // a table's staged files, and their rows
	after   func(table string, files []string) error // Target.Loaded
	set     Settings
	log     *slog.Logger
	queue   chan loadJob
	done    chan struct{}
	closed  sync.Once
	closing atomic.Bool // the walks are over

	stepsClosed sync.Once

	// Of the loader's goroutine only:
	rows    map[string]int64           // Parquet rows inserted, by table
	files   map[string]map[string]bool // files inserted, by table
	loads   limiter                    // the run's DuckDB file's instance
	pending sync.WaitGroup             // steps queued and not yet taken

	steps     chan step // the tables to step (Target.Loaded), in order
	stepped   chan struct{}
	stepLimit limiter // of the stepper's goroutine: Target.StepDB

	mu     sync.Mutex
	loaded map[string]Table
	err    error
}

// loadJob is one thing for the loader to do: load a finished file of a
// table, drop the files (and rows) of a table a re-walk discarded, or
// finish the tables of a walked collection. done, when not nil, hears how
// the job went (a job after a failed one is not done, and hears why).
type loadJob struct {
	table, file string
	drop        []string
	collection  string
	done        chan<- error
}

// Table is what DuckDB holds of a table after loading it.
type Table struct {
	ParquetRows int64 // rows read from the Parquet
	Tally
}

// Start starts loading into t's DuckDB file the files staged (t.Staged)
// of snapshot t.Snap, under settings set; log hears of a limit raised.
// The caller ends it with Wait.
func Start(t Target, set Settings, log *slog.Logger) *Loader {
	l := &Loader{ids: snapshotIDs{ctx: t.Ctx, db: t.DB, snap: t.Snap}, tables: t.Tables, staged: t.Staged, after: t.Loaded, set: set, log: log,
		queue: make(chan loadJob, 4*len(catalog.Tables())), done: make(chan struct{}),
		steps: make(chan step, 4*len(catalog.Tables())), stepped: make(chan struct{}),
		rows: map[string]int64{}, files: map[string]map[string]bool{}, loaded: map[string]Table{}}
	l.loads = newLimiter(t.Ctx, t.DB, set, log)
	l.stepLimit = newLimiter(t.Ctx, t.StepDB, set, log)
	go l.run()
	go l.step()
	return l
}

// Filled queues the load of file, a finished file of table
// (ingest.Hooks.Filled).
func (l *Loader) Filled(table, file string) { l.queue <- loadJob{table: table, file: file} }

// Dropped queues the drop of what was loaded of table and the removal of
// its files, which a re-walk discarded (ingest.Hooks.Dropped).
func (l *Loader) Dropped(table string, files []string) { l.queue <- loadJob{table: table, drop: files} }

// run does the jobs in turn under DuckDB's load settings.
func (l *Loader) run() {
	defer close(l.done)
	db := l.ids.db
	l.setErr(l.loads.settings(!l.set.FSST))
	for j := range l.queue {
		err := l.firstErr()
		if err == nil {
			err = l.do(j)
			l.setErr(err)
		} else {
			err = fmt.Errorf("not loaded: an earlier load failed: %w", err)
		}
		if j.done != nil {
			j.done <- err
		}
		if len(l.queue) == 0 && !l.closing.Load() && !l.failed() {
			// Nothing else to load while walks go on: write the loads
			// into the file now, rather than in the checkpoint at close.
			// Only a speed-up: a checkpoint DuckDB refuses is left to the
			// close.
			if _, err := db.ExecContext(l.ids.ctx, "CHECKPOINT"); err != nil {
				l.log.Debug("checkpoint while walking", "error", err)
			}
			crashpoint.Hit("load.checkpoint")
		}
	}
}

func (l *Loader) do(j loadJob) error {
	switch {
	case j.collection != "":
		return l.loadCollection(j.collection)
	case j.drop != nil:
		return l.dropFiles(j.table, j.drop)
	}
	t, _ := catalog.Find(l.tables, j.table)
	return l.loadFile(t, j.file)
}

// setErr keeps err unless it is nil or an error is kept already.
func (l *Loader) setErr(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

func (l *Loader) failed() bool { return l.firstErr() != nil }

// firstErr is the error kept, if any.
func (l *Loader) firstErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// step takes the steps queued (Target.Loaded), one at a time, until the
// loader has ended; after an error, the steps queued are not taken.
func (l *Loader) step() {
	defer close(l.stepped)
	if l.after != nil {
		l.setErr(l.stepLimit.settings(false))
	}
	for st := range l.steps {
		if !l.failed() {
			l.setErr(l.stepLimit.underLimit(st.table, "the history of "+st.table, func() error { return l.after(st.table, st.files) }))
		}
		l.pending.Done()
	}
}

// step is a table to step and its files.
type step struct {
	table string
	files []string
}

// Wait closes the queue and waits for the loads and steps under way; it
// returns the first error. Nothing may be queued after it.
func (l *Loader) Wait() error {
	l.closing.Store(true)
	l.closed.Do(func() { close(l.queue) })
	<-l.done
	l.stepsClosed.Do(func() { close(l.steps) })
	<-l.stepped
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Table is what was loaded of table name; ok is false when it was not.
func (l *Loader) Table(name string) (lt Table, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lt, ok = l.loaded[name]
	return lt, ok
}

// Ended loads what is not loaded yet of the files of a walked
// collection (ingest.Hooks.Ended) and tallies the IDs of its table. It
// waits for the loader, which loads the tables of walks that ended before
// first; the other walks go on meanwhile.
func (l *Loader) Ended(collection string) (extract.Tally, error) {
	done := make(chan error, 1)
	l.queue <- loadJob{collection: collection, done: done}
	if err := <-done; err != nil {
		return extract.Tally{}, err
	}
	lt, _ := l.Table(collection)
	return extract.Tally{Distinct: int(lt.Distinct), Twice: lt.Twice}, nil
}

// loadCollection finishes the tables of a walked collection (its own and
// those of its nested lists), whose files are closed: what is not loaded
// of them is, and their IDs are counted and hashed.
func (l *Loader) loadCollection(parent string) error {
	for _, name := range catalog.TablesOf(parent) {
		t, _ := catalog.Find(l.tables, name)
		files, _ := l.staged(name)
		for _, f := range files {
			if err := l.loadFile(t, f); err != nil {
				return err
			}
		}
		var ids Tally
		err := l.loads.underLimit(name, "the ids of "+name, func() error {
			var err error
			ids, err = l.ids.digest(name)
			return err
		})
		if err != nil {
			return fmt.Errorf("counting the ids of %s in DuckDB: %w", name, err)
		}
		l.mu.Lock()
		l.loaded[name] = Table{ParquetRows: l.rows[name], Tally: ids}
		l.mu.Unlock()
		if l.after != nil {
			l.pending.Add(1)
			l.steps <- step{table: name, files: slices.Clone(files)}
		}
	}
	return nil
}

// loadFile inserts the rows of a staged file of t, once.
func (l *Loader) loadFile(t catalog.Table, file string) error {
	if l.files[t.Name][file] {
		return nil
	}
	cols := strings.Join(t.LatestColumnNames(), ", ")
	q := fmt.Sprintf("INSERT INTO latest_%s (snapshot_id, %s) SELECT ?::VARCHAR, %s FROM read_parquet(%s, hive_partitioning = false)", t.Name, cols, cols, state.SQLString(file))
	res, err := l.exec(t.Name, t.Name+" from "+filepath.Base(file), q, l.ids.snap)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	if err != nil {
		return fmt.Errorf("loading %s into DuckDB: %w", t.Name, err)
	}
	if l.files[t.Name] == nil {
		l.files[t.Name] = map[string]bool{}
	}
	l.files[t.Name][file] = true
	l.rows[t.Name] += n
	crashpoint.Hit("load.insert")
	return nil
}

// exec runs a load statement. When DuckDB runs out of memory (rows wider
// than duckdb.load_memory_limit allows with duckdb.load_threads), the
// limit is doubled, up to duckdb.memory_limit, and the statement run again;
// the raised limit stays for the table's loads after. A statement that failed
// changed nothing.
func (l *Loader) exec(table, what, q string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := l.loads.underLimit(table, what, func() error {
		var err error
		res, err = l.ids.db.ExecContext(l.ids.ctx, q, args...)
		return err
	})
	return res, err
}

// megabytes is n bytes as DuckDB takes a memory limit.
func megabytes(n int64) string { return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "MB" }

// dropFiles undoes what was loaded of table and removes its files, which a
// re-walk discarded.
func (l *Loader) dropFiles(table string, files []string) error {
	l.pending.Wait() // a step under way may read them
	if len(l.files[table]) > 0 {
		q := fmt.Sprintf("DELETE FROM latest_%s WHERE snapshot_id = ?", table)
		if _, err := l.ids.db.ExecContext(l.ids.ctx, q, l.ids.snap); err != nil {
			return fmt.Errorf("dropping the rows of %s a re-walk discarded: %w", table, err)
		}
	}
	delete(l.files, table)
	delete(l.rows, table)
	l.mu.Lock()
	delete(l.loaded, table)
	l.mu.Unlock()
	for _, f := range files {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
