package snapshot

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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

func (c *collectionSink) writeChildren(rec extract.Record, ch Child) error {
	raw := rec.Fields[ch.Field]
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fmt.Errorf("want an array, got %s", clip(string(raw)))
	}
	t, _ := TableNamed(ch.Table)
	for i, item := range items {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(item, &fields); err != nil || fields == nil {
			return fmt.Errorf("item %d is not a JSON object", i+1)
		}
		id, err := childID(ch, fields, rec.ID, i)
		if err != nil {
			return fmt.Errorf("item %d: %w", i+1, err)
		}
		row, err := t.row(id, rec.ID, fields, item)
		if err != nil {
			return err
		}
		if err := c.r.writers[ch.Table].write(row); err != nil {
			return err
		}
	}
	return nil
}

// childID is an item's own ID, the join of its key fields, or
// parentID/position when it has neither.
func childID(ch Child, fields map[string]json.RawMessage, parentID string, i int) (string, error) {
	if len(ch.KeyFields) > 0 {
		parts := make([]string, len(ch.KeyFields))
		for k, f := range ch.KeyFields {
			v, err := convert(String, fields[f])
			if err != nil || v == nil {
				return "", fmt.Errorf("key field %s must be a string", f)
			}
			parts[k] = v.(string)
		}
		return strings.Join(parts, "/"), nil
	}
	if v, err := convert(String, fields["ID"]); err == nil && v != nil && v != "" {
		return v.(string), nil
	}
	return parentID + "/" + strconv.Itoa(i+1), nil
}
