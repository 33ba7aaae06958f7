package ingest

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/manifest"
)

// Settings tune the Parquet writers.
type Settings struct {
	Compression  string // snappy, zstd, gzip or none
	PageSize     int64  // bytes per page
	RowGroupSize int64  // bytes per row group
	Writers      int    // encoding goroutines per file
	RowsPerFile  int    // a table's part files roll over at this many rows
}

// Hooks are what the caller (the store) does with the files as the walks
// write them. Each is called from the goroutine of the walk concerned.
type Hooks struct {
	// Filled is a part file of table finished while its walk goes on.
	Filled func(table, file string)
	// Dropped are the files of table that a restarted walk discards; they
	// are removed by the hook (they may still be waiting to be used).
	Dropped func(table string, files []string)
	// Ended is the walk of a collection ended: the files of its table and
	// of its nested lists' tables are closed (Files has them all). Its
	// answer is the walk's tally.
	Ended func(collection string) (extract.Tally, error)
}

// Staging is a snapshot's tables being written as Parquet while the
// service is walked: part-NNNNN.parquet files in a directory per table,
// and what each walk received of every field (manifest.FieldStats).
type Staging struct {
	tables  []catalog.Table
	writers map[string]*partWriter // by table
	hooks   Hooks

	mu     sync.Mutex
	fields map[string][]manifest.FieldStats // by walked table: what its last walk received
}

// New starts the staging of tables (their field IDs set) in dir.
func New(dir string, tables []catalog.Table, set Settings, h Hooks) (*Staging, error) {
	s := &Staging{tables: tables, writers: map[string]*partWriter{}, hooks: h, fields: map[string][]manifest.FieldStats{}}
	scratch := &sync.Pool{New: newPageScratch} // the tables' writers share the encoding's room
	for _, t := range tables {
		w := newPartWriter(t, filepath.Join(dir, t.Name), set)
		w.scratch = scratch
		w.filled = func(file string) { h.Filled(t.Name, file) }
		w.drop = func(files []string) { h.Dropped(t.Name, files) }
		if err := w.reset(); err != nil {
			return nil, fmt.Errorf("staging: %w", err)
		}
		s.writers[t.Name] = w
	}
	return s, nil
}

// Files are table's Parquet files, and the rows written to them.
func (s *Staging) Files(table string) ([]string, int64) {
	w := s.writers[table]
	return slices.Clone(w.files), w.rows
}

// Sums are table's Parquet files as they were written (FileSum), in the
// order of Files; a file not yet closed has none.
func (s *Staging) Sums(table string) []FileSum {
	w := s.writers[table]
	var out []FileSum
	for _, f := range w.files {
		if sum, ok := w.sums[f]; ok {
			out = append(out, sum)
		}
	}
	return out
}

// Abort drops every file still open, unfinished.
func (s *Staging) Abort() {
	for _, w := range s.writers {
		w.abort()
	}
}

// Fields is what the last walk of each collection received of each field,
// in the order of the tables and their columns.
func (s *Staging) Fields() []manifest.FieldStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []manifest.FieldStats
	for _, fs := range s.fields {
		out = append(out, fs...)
	}
	manifest.SortFields(out, s.tables)
	return out
}

// Sink is where the walker hands the pages of the collection whose records
// go to table; nested lists go to their child tables.
func (s *Staging) Sink(table string) extract.Sink {
	t, ok := s.table(table)
	if !ok {
		panic("ingest: no table " + table)
	}
	c := &collectionSink{s: s, table: t, children: catalog.Children(table)}
	c.newBuilders()
	return c
}

// table is the staged table called name.
func (s *Staging) table(name string) (catalog.Table, bool) { return catalog.Find(s.tables, name) }

type collectionSink struct {
	s        *Staging
	table    catalog.Table
	children []catalog.Child
	rows     *rowBuilder     // the collection's
	items    []*rowBuilder   // by child
	fields   []extract.Field // room for the fields of the nested list being written
}

// newBuilders starts the walk's row builders, and with them its counts of
// the fields received.
func (c *collectionSink) newBuilders() {
	c.rows, c.items = newRowBuilder(c.table, nil), nil
	for i := range c.children {
		t, _ := c.s.table(c.children[i].Table)
		c.items = append(c.items, newRowBuilder(t, &c.children[i]))
	}
}

// Restart drops the rows of the collection and of its children.
func (c *collectionSink) Restart(int) error {
	c.newBuilders()
	if err := c.s.writers[c.table.Name].reset(); err != nil {
		return err
	}
	for _, ch := range c.children {
		if err := c.s.writers[ch.Table].reset(); err != nil {
			return err
		}
	}
	return nil
}

// Page writes a row per record, and a row per item of its nested lists.
func (c *collectionSink) Page(p *extract.Page) error {
	w := c.s.writers[c.table.Name]
	for i := range p.Records {
		rec := &p.Records[i]
		row, err := c.rows.record(rec)
		if err != nil {
			return err
		}
		if err := w.write(row); err != nil {
			return err
		}
		for k, ch := range c.children {
			raw := rec.Field(ch.Field)
			o, err := c.writeChildren(rec.ID, raw, ch, c.items[k])
			if err != nil {
				return fmt.Errorf("record %s, field %s: %w", rec.ID, ch.Field, err)
			}
			c.rows.listed(k, typeOf(raw), o, rec.ID)
		}
	}
	return nil
}

// End closes the files of the collection and of its nested lists, keeps
// what the walk received of each field, and hands the collection to
// Hooks.Ended.
func (c *collectionSink) End() (extract.Tally, error) {
	fields := c.rows.stats()
	for _, b := range c.items {
		fields = append(fields, b.stats()...)
	}
	c.s.mu.Lock()
	c.s.fields[c.table.Name] = fields
	c.s.mu.Unlock()
	for _, name := range catalog.TablesOf(c.table.Name) {
		if err := c.s.writers[name].close(); err != nil {
			return extract.Tally{}, err
		}
	}
	return c.s.hooks.Ended(c.table.Name)
}

// writeChildren writes the items of a record's nested list ch, raw. A
// list that is not an array, or an item that is not an object, breaks the
// contract where the spec defines the list (the item); otherwise it is
// untyped: counted, and kept in the parent's _raw only.
func (c *collectionSink) writeChildren(parentID, raw string, ch catalog.Child, b *rowBuilder) (outcome, error) {
	if raw == "" || raw == "null" {
		return typed, nil
	}
	if raw[0] != '[' {
		if ch.Contract {
			return untyped, fmt.Errorf("want an array, got %s", clip(raw))
		}
		return untyped, nil
	}
	o, i := typed, 0
	var err error
	c.fields = extract.Elements(raw, c.fields[:0], func(item string, fields []extract.Field) bool {
		switch {
		case item[0] == '{':
			err = c.writeChild(b, ch, parentID, i, item, fields)
		case ch.ItemContract:
			err = fmt.Errorf("item %d is not a JSON object", i+1)
		default:
			o = untyped
		}
		i++
		return err == nil
	})
	clear(c.fields) // views into the page's body: not kept past it
	return o, err
}

// writeChild writes item i of a nested list, the JSON object item with
// its fields, as a row of its table.
func (c *collectionSink) writeChild(b *rowBuilder, ch catalog.Child, parentID string, i int, item string, fields []extract.Field) error {
	row, err := b.item(parentID, i, fields, item)
	if err != nil {
		return err
	}
	return c.s.writers[ch.Table].write(row)
}
