package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/billsnap/billsnap/internal/crashpoint"
)

// loader loads each collection's tables into DuckDB as soon as its walk
// has ended, while the other collections are still being walked, so that
// publishing at the end is a small transaction. A table is loaded from its
// staged Parquet (which DuckDB so reads back) under the snapshot's ID; the
// snapshot is still "running", so no latest_ view shows the rows.
type loader struct {
	r       *Run
	ctx     context.Context
	queue   chan string // walked (parent) tables
	done    chan struct{}
	closed  sync.Once
	closing atomic.Bool // the walks are over

	mu     sync.Mutex
	loaded map[string]loadedTable
	err    error
}

// loadedTable is what DuckDB holds of a table after loading it.
type loadedTable struct {
	parquetRows int64 // rows read from the Parquet
	rows        int64 // rows in DuckDB with the snapshot's ID
	distinct    int64 // distinct IDs among them
	idsSHA256   string
}

func newLoader(ctx context.Context, r *Run) *loader {
	l := &loader{r: r, ctx: ctx, queue: make(chan string, len(Tables)), done: make(chan struct{}), loaded: map[string]loadedTable{}}
	go l.run()
	return l
}

// run loads the walked collections in turn under DuckDB's load memory
// limit, and puts the query limit back when the queue closes.
func (l *loader) run() {
	defer close(l.done)
	s := l.r.s
	l.setErr(s.setMemoryLimit(l.ctx, "duckdb.load_memory_limit", s.duck.LoadMemoryLimit))
	defer func() { l.setErr(s.setMemoryLimit(context.Background(), "duckdb.memory_limit", s.duck.MemoryLimit)) }()
	for parent := range l.queue {
		if l.failed() {
			continue
		}
		l.setErr(l.loadCollection(parent))
		if len(l.queue) == 0 && !l.closing.Load() && !l.failed() {
			// Nothing else to load while walks go on: write the loads
			// into the file now, rather than in the checkpoint at close
			// (0.2-0.5 s after a 200k-record export). Only a speed-up: a
			// checkpoint DuckDB refuses is left to the close.
			if _, err := s.db.ExecContext(l.ctx, "CHECKPOINT"); err != nil {
				s.log.Debug("checkpoint while walking", "error", err)
			}
			crashpoint.Hit("load.checkpoint")
		}
	}
}

// setErr keeps err unless it is nil or an error is kept already.
func (l *loader) setErr(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

func (l *loader) failed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err != nil
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

// loadCollection finishes and loads the tables of a walked collection: the
// collection's own and those of its nested lists.
func (l *loader) loadCollection(parent string) error {
	tables := []string{parent}
	for _, ch := range Children[parent] {
		tables = append(tables, ch.Table)
	}
	for _, name := range tables {
		t, _ := TableNamed(name)
		w := l.r.writers[name]
		if err := w.close(); err != nil {
			return err
		}
		lt, err := l.load(t, w.files)
		if err != nil {
			return fmt.Errorf("loading %s into DuckDB: %w", name, err)
		}
		l.mu.Lock()
		l.loaded[name] = lt
		l.mu.Unlock()
	}
	return nil
}

func (l *loader) load(t Table, files []string) (loadedTable, error) {
	var lt loadedTable
	cols := strings.Join(t.ColumnNames(), ", ")
	q := fmt.Sprintf("INSERT INTO %s (snapshot_id, %s) SELECT ?::VARCHAR, %s FROM read_parquet(%s)", t.Name, cols, cols, sqlList(files))
	res, err := l.r.s.db.ExecContext(l.ctx, q, l.r.ID)
	if err != nil {
		return lt, err
	}
	if lt.parquetRows, err = res.RowsAffected(); err != nil {
		return lt, err
	}
	crashpoint.Hit("load.insert")
	lt.rows, lt.distinct, lt.idsSHA256, err = l.digestIDs(t.Name)
	return lt, err
}

// digestIDs counts the rows and distinct ids the snapshot holds in table and
// hashes its ids the way the answer key does: SHA-256 of the sorted ids, each
// followed by "\n". DuckDB sorts (spilling to disk past its memory limit)
// and the ids stream through the hash, so memory stays flat however large
// the table; aggregating them into one string in DuckDB cost 60 MB at 443k
// rows.
func (l *loader) digestIDs(table string) (rows, distinct int64, digest string, err error) {
	q := fmt.Sprintf("SELECT id FROM %s WHERE snapshot_id = ? ORDER BY id", table)
	rs, err := l.r.s.db.QueryContext(l.ctx, q, l.r.ID)
	if err != nil {
		return 0, 0, "", err
	}
	defer rs.Close()
	h := sha256.New()
	var id, prev sql.RawBytes
	for rs.Next() {
		if err := rs.Scan(&id); err != nil {
			return 0, 0, "", err
		}
		if rows == 0 || !bytes.Equal(id, prev) {
			distinct++
		}
		rows++
		h.Write(id)
		h.Write([]byte{'\n'})
		prev = append(prev[:0], id...)
	}
	return rows, distinct, hex.EncodeToString(h.Sum(nil)), rs.Err()
}
