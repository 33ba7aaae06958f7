package snapshot

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/billsnap/billsnap/extract"
)

// Sink is where the walker hands the pages of the collection whose records
// go to table; nested lists go to their child tables.
func (r *Run) Sink(table string) extract.Sink {
	t, ok := r.s.table(table)
	if !ok {
		panic("snapshot: no table " + table)
	}
	c := &collectionSink{r: r, table: t, children: children[table]}
	c.newBuilders()
	return c
}

type collectionSink struct {
	r        *Run
	table    Table
	children []Child
	rows     *rowBuilder   // the collection's
	items    []*rowBuilder // by child
}

// newBuilders starts the walk's row builders, and with them its counts of
// the fields received.
func (c *collectionSink) newBuilders() {
	c.rows, c.items = newRowBuilder(c.table, nil), nil
	for i := range c.children {
		t, _ := c.r.s.table(c.children[i].Table)
		c.items = append(c.items, newRowBuilder(t, &c.children[i]))
	}
}

// Restart drops the rows of the collection and of its children.
func (c *collectionSink) Restart(int) error {
	c.newBuilders()
	if err := c.r.writers[c.table.Name].reset(); err != nil {
		return err
	}
	for _, ch := range c.children {
		if err := c.r.writers[ch.Table].reset(); err != nil {
			return err
		}
	}
	return nil
}

// Page writes a row per record, and a row per item of its nested lists.
func (c *collectionSink) Page(p *extract.Page) error {
	w := c.r.writers[c.table.Name]
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

// End closes the collection's files, loads what is not loaded yet of them
// into DuckDB, and tallies the IDs of the collection's table there. It
// waits for the loader, which loads the tables of walks that ended before
// first; the other walks go on meanwhile. What the walk received of each
// field is kept for the manifest.
func (c *collectionSink) End() (extract.Tally, error) {
	fields := c.rows.stats()
	for _, b := range c.items {
		fields = append(fields, b.stats()...)
	}
	c.r.fieldsWalked(c.table.Name, fields)
	done := make(chan error, 1)
	c.r.loader.queue <- loadJob{collection: c.table.Name, done: done}
	if err := <-done; err != nil {
		return extract.Tally{}, err
	}
	lt, _ := c.r.loader.table(c.table.Name)
	return extract.Tally{Distinct: int(lt.distinct), Twice: lt.twice}, nil
}

// writeChildren writes the items of a record's nested list ch, raw. A
// list that is not an array, or an item that is not an object, breaks the
// contract where the spec defines the list (the item); otherwise it is
// untyped: counted, and kept in the parent's _raw only.
func (c *collectionSink) writeChildren(parentID, raw string, ch Child, b *rowBuilder) (outcome, error) {
	if raw == "" || raw == "null" {
		return typed, nil
	}
	arr := gjson.Parse(raw)
	if !arr.IsArray() {
		if ch.Contract {
			return untyped, fmt.Errorf("want an array, got %s", clip(raw))
		}
		return untyped, nil
	}
	o, i := typed, 0
	var err error
	arr.ForEach(func(_, item gjson.Result) bool {
		switch {
		case item.IsObject():
			err = c.writeChild(b, ch, parentID, i, item)
		case ch.ItemContract:
			err = fmt.Errorf("item %d is not a JSON object", i+1)
		default:
			o = untyped
		}
		i++
		return err == nil
	})
	return o, err
}

// writeChild writes item i of a nested list as a row of its table.
func (c *collectionSink) writeChild(b *rowBuilder, ch Child, parentID string, i int, item gjson.Result) error {
	var fields []extract.Field
	item.ForEach(func(k, v gjson.Result) bool {
		fields = append(fields, extract.Field{Name: k.Str, Raw: v.Raw})
		return true
	})
	row, err := b.item(parentID, i, fields, item.Raw)
	if err != nil {
		return err
	}
	return c.r.writers[ch.Table].write(row)
}
