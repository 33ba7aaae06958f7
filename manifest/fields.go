package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/plural"
)

// FieldStats is what one walk received of one field of a table: how many
// values came in each JSON type, how many were coerced into the column
// and how many could not be (untyped: NULL in the column, kept in _raw).
// A field the service sent that has no typed column (a new field) has no
// Column; a typed column whose field never arrived (absent) has no value
// of any type.
type FieldStats struct {
	Table    string
	Column   string // the typed column; "" for a new field
	Field    string // the JSON field
	Kind     string // the column's kind (Kind.String); "" for a new field
	Contract bool   // a field the spec defines
	Types    TypeCounts
	Coerced  int64
	Untyped  int64
	// Repaired counts the values, or the field's name, that arrived as
	// text that is not valid UTF-8: each invalid byte became U+FFFD in
	// the column, and _raw keeps it as the text \xHH.
	Repaired int64
	// Deep counts the values nested deeper than jsontext.MaxDepth (1,000
	// levels): their record's _raw is kept as a JSON string of its text,
	// never as JSON a parser reads. The export's log says so; the state
	// does not keep it.
	Deep int64
	// Twice counts the records that sent the field's name again after
	// its first: the column and _raw keep the first (_raw is written
	// without the later ones). The export's log says so; the state does
	// not keep it.
	Twice int64
	// Example is a record (its id) with an untyped value, or failing that
	// with a coerced one; for a new field, the first record that sent it.
	Example string
}

// TypeCounts are values received by JSON type.
type TypeCounts struct {
	Null, String, Number, Boolean, Object, Array int64
}

// Received is how many records carried the field (null included).
func (f FieldStats) Received() int64 {
	t := f.Types
	return t.Null + t.String + t.Number + t.Boolean + t.Object + t.Array
}

// New tells whether the field has no typed column.
func (f FieldStats) New() bool { return f.Column == "" }

// Drifted tells whether the field's values were not all in their column's
// own form: some were coerced, untyped or repaired.
func (f FieldStats) Drifted() bool {
	return f.Coerced > 0 || f.Untyped > 0 || f.Repaired > 0 || f.Deep > 0 || f.Twice > 0
}

// SeenTypes names the JSON types that came, with their counts: "string
// 3,120, number 2".
func (f FieldStats) SeenTypes() []TypeCount {
	var out []TypeCount
	for i, n := range []int64{f.Types.Null, f.Types.String, f.Types.Number, f.Types.Boolean, f.Types.Object, f.Types.Array} {
		if n > 0 {
			out = append(out, TypeCount{Type: jsonTypes[i], Count: n})
		}
	}
	return out
}

// jsonTypes names the JSON types in TypeCounts' order.
var jsonTypes = [...]string{"null", "string", "number", "boolean", "object", "array"}

// TypeCount is one JSON type and how many values came in it.
type TypeCount struct {
	Type  string
	Count int64
}

// SortFields orders field statistics by table (in the schema's order),
// then typed columns in their order, then new fields by name.
func SortFields(fs []FieldStats, tables []catalog.Table) {
	pos := func(f FieldStats) (int, int) {
		ti := slices.IndexFunc(tables, func(t catalog.Table) bool { return t.Name == f.Table })
		switch {
		case f.New() || ti < 0:
			return ti, 1 << 30
		case f.Kind == "list":
			return ti, 1 << 29
		case f.Column == "id":
			return ti, -1
		}
		return ti, slices.IndexFunc(tables[ti].Columns, func(c catalog.Column) bool { return c.Name == f.Column })
	}
	slices.SortStableFunc(fs, func(a, b FieldStats) int {
		at, ac := pos(a)
		bt, bc := pos(b)
		switch {
		case at != bt:
			return at - bt
		case ac != bc:
			return ac - bc
		}
		return strings.Compare(a.Field, b.Field)
	})
}

// TypesText names the JSON types that came with their counts: "number
// 1180, string 57".
func (f FieldStats) TypesText() string {
	var parts []string
	for _, tc := range f.SeenTypes() {
		parts = append(parts, fmt.Sprintf("%s %d", tc.Type, tc.Count))
	}
	return strings.Join(parts, ", ")
}

// ArrivedText is TypesText, and how many values were repaired when some
// were: "string 20; 20 repaired (not valid UTF-8)".
func (f FieldStats) ArrivedText() string {
	if f.Repaired == 0 {
		return f.TypesText()
	}
	return fmt.Sprintf("%s; %d repaired (not valid UTF-8)", f.TypesText(), f.Repaired)
}

// Name is table.Field, and the column when it has another name:
// "invoices.TotalAmount (total_amount)".
func (f FieldStats) Name() string {
	if f.Column == "" {
		return f.Table + "." + f.Field
	}
	return f.Table + "." + f.Field + " (" + f.Column + ")"
}

// Summary says in one line what came of the field: "arrived as number
// 1180, string 57: 57 coerced, 3 untyped (NULL in the column, kept in
// _raw), e.g. record 6f1c…".
func (f FieldStats) Summary() string {
	switch {
	case f.New():
		return fmt.Sprintf("no typed column: %s sent it (%s), kept in _raw", plural.Of(f.Received(), "record"), f.TypesText()) + f.repairedText()
	case f.Received() == 0:
		return "never arrived"
	}
	s := fmt.Sprintf("a %s column; arrived as %s: %d coerced, %d untyped (NULL, kept in _raw)", f.Kind, f.TypesText(), f.Coerced, f.Untyped)
	s += f.repairedText()
	if f.Example != "" {
		s += ", e.g. record " + f.Example
	}
	return s
}

// repairedText says how many values were repaired, when some were.
func (f FieldStats) repairedText() string {
	if f.Repaired == 0 {
		return ""
	}
	return fmt.Sprintf(", %d repaired (not valid UTF-8: U+FFFD in the column, the bytes as \\xHH in _raw)", f.Repaired)
}
