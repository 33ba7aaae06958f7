package snapshot

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/state"
)

// loader loads the staged Parquet into the run's DuckDB file (its latest_
// tables) while the service is still walked, so that little is left to do
// when the last walk ends: each part file a table finishes (every
// parquet.rows_per_file rows), and the rest of a collection's tables as
// soon as its walk has ended, when their IDs are counted for the walker
// (collectionEnded). No reader sees the file before it is
// published. A re-walk drops what was loaded of its tables. Jobs are done
// in the order they come, by one goroutine.
type loader struct {
	s       *Store
	ids     snapshotIDs                          // the run's DuckDB file and its snapshot
	staged  func(table string) ([]string, int64) // a table's staged files, and their rows
	queue   chan loadJob
	done    chan struct{}
	closed  sync.Once
	closing atomic.Bool // the walks are over

	// Of the loader's goroutine only:
	rows   map[string]int64           // Parquet rows inserted, by table
	files  map[string]map[string]bool // files inserted, by table
	base   int64                      // duckdb.load_memory_limit in bytes
	limits map[string]int64           // the limit a table's loads needed, when above base
	set    int64                      // DuckDB's memory_limit now, in bytes
	ceil   int64                      // duckdb.memory_limit in bytes: a limit's highest

	mu     sync.Mutex
	loaded map[string]loadedTable
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

// loadedTable is what DuckDB holds of a table after loading it.
type loadedTable struct {
	parquetRows int64 // rows read from the Parquet
	idTally
}

// newLoader starts loading into ids's DuckDB file the files staged
// (their list) of snapshot ids.snap of store s.
func newLoader(s *Store, ids snapshotIDs, staged func(table string) ([]string, int64)) *loader {
	l := &loader{s: s, ids: ids, staged: staged, queue: make(chan loadJob, 4*len(catalog.Tables())), done: make(chan struct{}),
		rows: map[string]int64{}, files: map[string]map[string]bool{}, loaded: map[string]loadedTable{}}
	l.base, _ = MemoryBytes(s.duck.LoadMemoryLimit)
	l.ceil, _ = MemoryBytes(s.duck.MemoryLimit)
	l.set, l.limits = l.base, map[string]int64{}
	go l.run()
	return l
}

// run does the jobs in turn under DuckDB's load settings.
func (l *loader) run() {
	defer close(l.done)
	s := l.s
	db := l.ids.db
	l.setErr(s.loadSettings(l.ids.ctx, db))
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
			// into the file now, rather than in the checkpoint at close
			// (0.2-0.5 s after a 200k-record export). Only a speed-up: a
			// checkpoint DuckDB refuses is left to the close.
			if _, err := db.ExecContext(l.ids.ctx, "CHECKPOINT"); err != nil {
				s.log.Debug("checkpoint while walking", "error", err)
			}
			crashpoint.Hit("load.checkpoint")
		}
	}
}

func (l *loader) do(j loadJob) error {
	switch {
	case j.collection != "":
		return l.loadCollection(j.collection)
	case j.drop != nil:
		return l.dropFiles(j.table, j.drop)
	}
	t, _ := l.s.table(j.table)
	return l.loadFile(t, j.file)
}

// setErr keeps err unless it is nil or an error is kept already.
func (l *loader) setErr(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

func (l *loader) failed() bool { return l.firstErr() != nil }

// firstErr is the error kept, if any.
func (l *loader) firstErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// wait closes the queue and waits for the loads under way; it returns the
// first load error.
func (l *loader) wait() error {
	l.closing.Store(true)
	l.closed.Do(func() { close(l.queue) })
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// table is what was loaded of table name; ok is false when it was not.
func (l *loader) table(name string) (lt loadedTable, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lt, ok = l.loaded[name]
	return lt, ok
}

// collectionEnded loads what is not loaded yet of the files of a walked
// collection (ingest.Hooks.Ended) and tallies the IDs of its table. It
// waits for the loader, which loads the tables of walks that ended before
// first; the other walks go on meanwhile.
func (l *loader) collectionEnded(collection string) (extract.Tally, error) {
	done := make(chan error, 1)
	l.queue <- loadJob{collection: collection, done: done}
	if err := <-done; err != nil {
		return extract.Tally{}, err
	}
	lt, _ := l.table(collection)
	return extract.Tally{Distinct: int(lt.distinct), Twice: lt.twice}, nil
}

// loadCollection finishes the tables of a walked collection (its own and
// those of its nested lists), whose files are closed: what is not loaded
// of them is, and their IDs are counted and hashed.
func (l *loader) loadCollection(parent string) error {
	for _, name := range catalog.TablesOf(parent) {
		t, _ := l.s.table(name)
		files, _ := l.staged(name)
		for _, f := range files {
			if err := l.loadFile(t, f); err != nil {
				return err
			}
		}
		var ids idTally
		err := l.underLimit(name, "the ids of "+name, func() error {
			var err error
			ids, err = l.ids.digest(name)
			return err
		})
		if err != nil {
			return fmt.Errorf("counting the ids of %s in DuckDB: %w", name, err)
		}
		l.mu.Lock()
		l.loaded[name] = loadedTable{parquetRows: l.rows[name], idTally: ids}
		l.mu.Unlock()
	}
	return nil
}

// loadFile inserts the rows of a staged file of t, once.
func (l *loader) loadFile(t catalog.Table, file string) error {
	if l.files[t.Name][file] {
		return nil
	}
	cols := strings.Join(t.ColumnNames(), ", ")
	q := fmt.Sprintf("INSERT INTO latest_%s (snapshot_id, %s) SELECT ?::VARCHAR, %s FROM read_parquet(%s)", t.Name, cols, cols, state.SQLString(file))
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
func (l *loader) exec(table, what, q string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := l.underLimit(table, what, func() error {
		var err error
		res, err = l.ids.db.ExecContext(l.ids.ctx, q, args...)
		return err
	})
	return res, err
}

// underLimit runs do for table, which changes nothing when it fails,
// under the limit the table's loads need: duckdb.load_memory_limit, or
// what a load of it needed before. When DuckDB runs out of memory, the
// table's limit is doubled, up to duckdb.memory_limit, and do is run
// again; the other tables keep theirs, so that one table of wide rows
// does not raise what every load may hold. what names what do loads or
// counts, for the log.
func (l *loader) underLimit(table, what string, do func() error) error {
	s := l.s
	limit := max(l.base, l.limits[table])
	for {
		if err := l.setLimit(limit); err != nil {
			return err
		}
		err := do()
		if !OutOfMemory(err) {
			return err
		}
		if limit >= l.ceil {
			return fmt.Errorf("%w (memory limit %s; raise config key duckdb.memory_limit, or lower duckdb.load_threads)", err, s.duck.MemoryLimit)
		}
		limit = min(2*limit, l.ceil)
		l.limits[table] = limit
		s.log.Warn("DuckDB ran out of memory loading the snapshot; loading again with a higher memory limit",
			"loading", what, "memory_limit", megabytes(limit), "load_memory_limit", s.duck.LoadMemoryLimit)
	}
}

// setLimit sets DuckDB's memory_limit to limit bytes, if it is not.
func (l *loader) setLimit(limit int64) error {
	if limit == l.set {
		return nil
	}
	if err := setting(l.ids.ctx, l.ids.db, "memory_limit", "duckdb.load_memory_limit", megabytes(limit)); err != nil {
		return err
	}
	l.set = limit
	return nil
}

// megabytes is n bytes as DuckDB takes a memory limit.
func megabytes(n int64) string { return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "MB" }

// dropFiles undoes what was loaded of table and removes its files, which a
// re-walk discarded.
func (l *loader) dropFiles(table string, files []string) error {
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

// OutOfMemory tells whether err is DuckDB's out-of-memory error: a
// statement that did not fit in memory_limit, and changed nothing.
func OutOfMemory(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
}
