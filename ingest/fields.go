package ingest

import (
	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/manifest"
)

// fieldTally counts one field's values as a walk converts them.
type fieldTally struct {
	types     [numJSONTypes]int64
	coerced   int64
	untyped   int64
	repaired  int64
	deep      int64
	twice     int64
	example   string
	untypedEx bool // example has an untyped value
}

// add counts a value of type t that came to outcome o in record id.
func (f *fieldTally) add(t jsonType, o outcome, id string) {
	f.types[t]++
	switch {
	case o == untyped:
		f.untyped++
		if !f.untypedEx {
			f.example, f.untypedEx = cloneID(id), true
		}
	case o == coerced:
		f.mark(&f.coerced, id)
	}
}

// mark counts one more in n, one of f's counters (repaired, deep,
// twice), for record id, which is the example when f has none yet.
func (f *fieldTally) mark(n *int64, id string) {
	*n++
	if f.example == "" {
		f.example = cloneID(id)
	}
}

// cloneID copies an id out of the page body it may view, so that the
// tally does not keep the body alive.
func cloneID(id string) string { return string(append([]byte(nil), id...)) }

// stats is what the tally counted of field, whose typed column in table
// is c (nil for a new field).
func (f *fieldTally) stats(table string, c *catalog.Column, field string) manifest.FieldStats {
	st := manifest.FieldStats{Table: table, Field: field, Coerced: f.coerced, Untyped: f.untyped, Repaired: f.repaired, Deep: f.deep, Twice: f.twice, Example: f.example,
		Types: manifest.TypeCounts{Null: f.types[typeNull], String: f.types[typeString], Number: f.types[typeNumber],
			Boolean: f.types[typeBoolean], Object: f.types[typeObject], Array: f.types[typeArray]}}
	if c != nil {
		st.Column, st.Kind, st.Contract = c.Name, c.Kind.String(), c.Contract
	}
	return st
}
