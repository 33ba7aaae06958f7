package snapshot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/billsnap/billsnap/extract"
)

// Sink is where the walker hands the pages of the collection whose records
// go to table; nested lists go to their child tables.
func (r *Run) Sink(table string) extract.Sink {
	t, err := TableNamed(table)
	if err != nil {
		panic("snapshot: " + err.Error())
	}
	return &collectionSink{r: r, table: t, children: Children[table]}
}

type collectionSink struct {
	r        *Run
	table    Table
	children []Child
}

// Restart drops the rows of the collection and of its children.
func (c *collectionSink) Restart(int) error {
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
	for _, rec := range p.Records {
		row, err := c.table.row(rec.ID, "", rec.Fields, rec.Raw)
		if err != nil {
			return err
		}
		if err := w.write(row); err != nil {
			return err
		}
		for _, ch := range c.children {
			if err := c.writeChildren(rec, ch); err != nil {
				return fmt.Errorf("record %s, field %s: %w", rec.ID, ch.Field, err)
			}
		}
	}
	return nil
}

// End closes the collection's files, loads what is not loaded yet of them
// into DuckDB, and tallies the IDs of the collection's table there. It
// waits for the loader, which loads the tables of walks that ended before
// first; the other walks go on meanwhile.
func (c *collectionSink) End() (extract.Tally, error) {
	done := make(chan error, 1)
	c.r.loader.queue <- loadJob{collection: c.table.Name, done: done}
	if err := <-done; err != nil {
		return extract.Tally{}, err
	}
	lt, _ := c.r.loader.table(c.table.Name)
	return extract.Tally{Distinct: int(lt.distinct), Twice: lt.twice}, nil
}

func (c *collectionSink) writeChildren(rec extract.Record, ch Child) error {
	raw := rec.Field(ch.Field)
	if raw == "" || raw == "null" {
		return nil
	}
	arr := gjson.Parse(raw)
	if !arr.IsArray() {
		return fmt.Errorf("want an array, got %s", clip(raw))
	}
	t, _ := TableNamed(ch.Table)
	var err error
	i := 0
	arr.ForEach(func(_, item gjson.Result) bool {
		err = c.writeChild(t, ch, rec.ID, i, item)
		i++
		return err == nil
	})
	return err
}

// writeChild writes item i of a nested list as a row of t.
func (c *collectionSink) writeChild(t Table, ch Child, parentID string, i int, item gjson.Result) error {
	if !item.IsObject() {
		return fmt.Errorf("item %d is not a JSON object", i+1)
	}
	var fields []extract.Field
	item.ForEach(func(k, v gjson.Result) bool {
		fields = append(fields, extract.Field{Name: k.Str, Raw: v.Raw})
		return true
	})
	id, err := childID(ch, fields, parentID, i)
	if err != nil {
		return fmt.Errorf("item %d: %w", i+1, err)
	}
	row, err := t.row(id, parentID, fields, item.Raw)
	if err != nil {
		return err
	}
	return c.r.writers[ch.Table].write(row)
}

// childID is an item's own ID, the join of its key fields, or
// parentID/position when it has neither.
func childID(ch Child, fields []extract.Field, parentID string, i int) (string, error) {
	if len(ch.KeyFields) > 0 {
		parts := make([]string, len(ch.KeyFields))
		for k, f := range ch.KeyFields {
			v, err := convert(String, extract.FieldOf(fields, f))
			if err != nil || v == nil {
				return "", fmt.Errorf("key field %s must be a string", f)
			}
			parts[k] = v.(string)
		}
		return strings.Join(parts, "/"), nil
	}
	if v, err := convert(String, extract.FieldOf(fields, "ID")); err == nil && v != nil && v != "" {
		return v.(string), nil
	}
	return parentID + "/" + strconv.Itoa(i+1), nil
}
