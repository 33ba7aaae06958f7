package ingest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/jsontext"
	"github.com/billsnap/billsnap/manifest"
)

// rowBuilder turns the records of one table into rows in Parquet order
// (id, the parent's ID for a child table, the typed columns, _raw), and
// counts what it received of every field (manifest.FieldStats). It
// belongs to one walk: the walk's goroutine alone uses it.
//
// Records of a list mostly send their fields in one order, so the
// builder remembers where each field of the last record went and reuses
// that while the names repeat.
type rowBuilder struct {
	t       catalog.Table
	child   *catalog.Child   // the nested list a child table's items come from
	columns []catalog.Column // t's typed columns, then for a child with its own IDs the item's ID
	byName  map[string]int

	names []string // the fields of the last record, in order
	slots []int    // where each went: a column, -1 (not a column), or -(k+2) for fresh[k]

	vals  []string // per column: the current record's JSON, "" when absent
	types []jsonType
	outs  []outcome
	fixed []bool // per field of the current record: repaired (repair); empty when the record is valid UTF-8
	deep  []bool // per field of the current record: nested too deep (markDeep); empty when the record is not
	twice []int  // the fields of the current record whose name came before in it (markTwice), in order

	tallies []fieldTally // per column
	lists   []fieldTally // per nested list (catalog.Children(t.Name))
	fresh   []freshField // fields without a column, in the order they first came
}

// freshField is a field the service sent that has no typed column.
type freshField struct {
	name  string
	tally fieldTally
}

const notColumn = -1

// newRowBuilder makes the builder of table t; ch is the nested list it
// comes from when t is a child table, else nil.
func newRowBuilder(t catalog.Table, ch *catalog.Child) *rowBuilder {
	b := &rowBuilder{t: t, child: ch, columns: t.Columns, byName: map[string]int{}}
	if ch != nil && len(ch.KeyColumns) == 0 {
		b.columns = append(append([]catalog.Column(nil), t.Columns...), catalog.Column{Name: "id", Field: "ID", Kind: catalog.String, Contract: ch.ItemContract})
	} else {
		b.byName["ID"] = notColumn // a record's own ID is the walker's
	}
	for i, c := range b.columns {
		b.byName[c.Field] = i
	}
	nested := catalog.Children(t.Name)
	for _, ch := range nested {
		b.byName[ch.Field] = notColumn
	}
	n := len(b.columns)
	b.vals, b.types, b.outs, b.tallies = make([]string, n), make([]jsonType, n), make([]outcome, n), make([]fieldTally, n)
	b.lists = make([]fieldTally, len(nested))
	return b
}

// record builds the row of a collection's record.
func (b *rowBuilder) record(rec *extract.Record) ([]any, error) {
	row, err := b.convert(rec.ID, "", rec.Fields, rec.Raw)
	if err != nil {
		return nil, fmt.Errorf("record %s, %w", rec.ID, err)
	}
	b.count(rec.ID, rec.Fields)
	return row, nil
}

// item builds the row of item i (from 0) of a nested list of parentID.
func (b *rowBuilder) item(parentID string, i int, fields []extract.Field, raw string) ([]any, error) {
	row, err := b.convert("", parentID, fields, raw)
	if err != nil {
		return nil, fmt.Errorf("item %d: %w", i+1, err)
	}
	id, err := b.itemID(row, parentID, i)
	if err != nil {
		return nil, fmt.Errorf("item %d: %w", i+1, err)
	}
	row[0] = id
	b.count(id, fields)
	return row, nil
}

// convert places the record's fields and converts the typed columns.
func (b *rowBuilder) convert(id, parentID string, fields []extract.Field, raw string) ([]any, error) {
	b.place(fields)
	b.markTwice(fields)
	raw, err := b.checkTwice(fields, raw)
	if err != nil {
		return nil, err
	}
	b.fixed = b.fixed[:0]
	if !validJSONText(raw) {
		b.fixed = slices.Grow(b.fixed, len(fields))[:len(fields)]
		if raw, err = b.repair(fields, raw); err != nil {
			return nil, err
		}
	}
	if jsontext.TooDeep(raw, jsontext.MaxDepth) {
		b.markDeep(fields)
		raw = jsontext.Quote(raw)
	}
	row := make([]any, 0, len(b.t.Columns)+3)
	row = append(row, id)
	if b.t.ParentColumn != "" {
		row = append(row, parentID)
	}
	for i := range b.columns {
		v, o, err := convert(b.columns[i], b.vals[i])
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", b.columns[i].Field, err)
		}
		b.types[i], b.outs[i] = typeOf(b.vals[i]), o
		if i < len(b.t.Columns) {
			row = append(row, v)
		} else if v != nil {
			row[0] = v
		}
	}
	return append(row, raw), nil
}

// place finds where each field goes and sets vals.
func (b *rowBuilder) place(fields []extract.Field) {
	if !b.sameNames(fields) {
		b.names, b.slots = b.names[:0], b.slots[:0]
		for _, f := range fields {
			// A copy: a view would keep a page body alive.
			b.names = append(b.names, strings.Clone(f.Name))
			b.slots = append(b.slots, b.slotOf(f.Name))
		}
	}
	clear(b.vals)
	for i, f := range fields {
		if s := b.slots[i]; s >= 0 && b.vals[s] == "" { // a name twice: the first counts
			b.vals[s] = f.Raw
		}
	}
}

func (b *rowBuilder) sameNames(fields []extract.Field) bool {
	if len(fields) != len(b.names) {
		return false
	}
	for i, f := range fields {
		if f.Name != b.names[i] {
			return false
		}
	}
	return true
}

func (b *rowBuilder) slotOf(name string) int {
	if i, ok := b.byName[name]; ok {
		return i
	}
	name = validText(name) // a name not valid UTF-8 is a new field's, repaired
	for k, f := range b.fresh {
		if f.name == name {
			return -(k + 2)
		}
	}
	b.fresh = append(b.fresh, freshField{name: strings.Clone(name)})
	return -(len(b.fresh) + 1)
}

// count tallies the record's values, now that its id is known.
func (b *rowBuilder) count(id string, fields []extract.Field) {
	for i := range b.columns {
		b.tallies[i].add(b.types[i], b.outs[i], id)
	}
	for i, s := range b.slots {
		if s <= -2 {
			f := &b.fresh[-s-2].tally
			if f.example == "" {
				f.example = cloneID(id)
			}
			f.add(typeOf(fields[i].Raw), typed, id)
		}
	}
	b.markEach(b.deep, id, func(f *fieldTally) *int64 { return &f.deep })
	b.deep = b.deep[:0]
	b.countTwice(id)
	b.markEach(b.fixed, id, func(f *fieldTally) *int64 { return &f.repaired })
}

// tally is the tally of the field placed in slot s (a column or a fresh
// field), nil for none.
func (b *rowBuilder) tally(s int) *fieldTally {
	switch {
	case s >= 0:
		return &b.tallies[s]
	case s <= -2:
		return &b.fresh[-s-2].tally
	}
	return nil
}

// markEach counts, in the counter of each field's tally that counter
// picks, the fields of record id that marked says (per field, in order).
func (b *rowBuilder) markEach(marked []bool, id string, counter func(*fieldTally) *int64) {
	for i, m := range marked {
		if f := b.tally(b.slots[i]); m && f != nil {
			f.mark(counter(f), id)
		}
	}
}

// markDeep marks the fields of a record nested deeper than
// jsontext.MaxDepth whose values nest that deep, for count: the record's
// _raw is kept as a JSON string of its text, which DuckDB reads as one
// value, rather than JSON it would parse (a million levels ran it out of
// memory at every later export).
func (b *rowBuilder) markDeep(fields []extract.Field) {
	b.deep = slices.Grow(b.deep[:0], len(fields))[:len(fields)]
	for i, f := range fields {
		b.deep[i] = jsontext.TooDeep(f.Raw, jsontext.MaxDepth-1)
	}
}

// listed counts the k-th nested list of record id, of type t, written
// with outcome o.
func (b *rowBuilder) listed(k int, t jsonType, o outcome, id string) { b.lists[k].add(t, o, id) }

// itemID is a child item's id: the values of its key fields joined by
// "/", or its own ID; parentID/position when it has neither. An item of
// the spec's (Child.ItemContract) must have its own ID.
func (b *rowBuilder) itemID(row []any, parentID string, i int) (string, error) {
	if keys := b.child.KeyColumns; len(keys) > 0 {
		parts := make([]string, len(keys))
		for k, name := range keys {
			s, ok := row[b.rowIndex(name)].(string)
			if !ok {
				return parentID + "/" + strconv.Itoa(i+1), nil
			}
			parts[k] = s
		}
		return strings.Join(parts, "/"), nil
	}
	if id, ok := row[0].(string); ok && id != "" {
		return id, nil
	}
	if b.child.ItemContract {
		return "", fmt.Errorf("the item has no ID")
	}
	return parentID + "/" + strconv.Itoa(i+1), nil
}

// rowIndex is where the typed column called name is in a row.
func (b *rowBuilder) rowIndex(name string) int {
	i := slices.IndexFunc(b.t.Columns, func(c catalog.Column) bool { return c.Name == name }) + 1
	if b.t.ParentColumn != "" {
		i++
	}
	return i
}

// stats is what the builder counted, per typed column, then per new field.
func (b *rowBuilder) stats() []manifest.FieldStats {
	out := make([]manifest.FieldStats, 0, len(b.columns)+len(b.fresh))
	for i := range b.columns {
		out = append(out, b.tallies[i].stats(b.t.Name, &b.columns[i], b.columns[i].Field))
	}
	for k, ch := range catalog.Children(b.t.Name) {
		st := b.lists[k].stats(b.t.Name, nil, ch.Field)
		st.Column, st.Kind, st.Contract = ch.Table, "list", ch.Contract
		out = append(out, st)
	}
	for _, f := range b.fresh {
		out = append(out, f.tally.stats(b.t.Name, nil, f.name))
	}
	return out
}
