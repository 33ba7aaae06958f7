package snapshot

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// loader loads each collection's tables into DuckDB as soon as its walk
// has ended, while the other collections are still being walked, so that
// publishing at the end is a small transaction. A table is loaded from its
// staged Parquet (which DuckDB so reads back) under the snapshot's ID; the
// snapshot is still "running", so no latest_ view shows the rows.
type loader struct {
	r      *Run
	ctx    context.Context
	queue  chan string // walked (parent) tables
	done   chan struct{}
	closed sync.Once

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

func (l *loader) run() {
	defer close(l.done)
	for parent := range l.queue {
		if l.failed() {
			continue
		}
		if err := l.loadCollection(parent); err != nil {
			l.mu.Lock()
			l.err = err
			l.mu.Unlock()
		}
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
	l.closed.Do(func() { close(l.queue) })
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
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
	q = fmt.Sprintf(`SELECT count(*), count(DISTINCT id), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256(''))
		FROM %s WHERE snapshot_id = ?`, t.Name)
	err = l.r.s.db.QueryRowContext(l.ctx, q, l.r.ID).Scan(&lt.rows, &lt.distinct, &lt.idsSHA256)
	return lt, err
}
