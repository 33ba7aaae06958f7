package manifest_test

import (
	"slices"
	"testing"

	"github.com/billsnap/billsnap/manifest"
)

// The notes of a snapshot's fields: a field with no typed column is new,
// one with values coerced, untyped or repaired drifted, and a typed field
// that never arrived is absent only where its table has rows.
func TestNotesPickWhatPeopleShouldSee(t *testing.T) {
	t.Parallel()
	fields := []manifest.FieldStats{
		{Table: "invoices", Column: "total_amount", Field: "TotalAmount", Types: manifest.TypeCounts{Number: 5}},
		{Table: "invoices", Column: "currency_code", Field: "CurrencyCode", Types: manifest.TypeCounts{String: 4, Number: 1}, Coerced: 1},
		{Table: "invoices", Column: "memo", Field: "Memo", Types: manifest.TypeCounts{Object: 1}, Untyped: 1},
		{Table: "invoices", Field: "Surprise", Types: manifest.TypeCounts{String: 2}},
		{Table: "invoices", Column: "po_number", Field: "PONumber"},
		{Table: "credit_notes", Column: "reason", Field: "Reason"},
	}
	tables := []manifest.TableStats{{Table: "invoices", DuckDBRows: 5}, {Table: "credit_notes"}}
	n := manifest.Notes(fields, tables)
	names := func(fs []manifest.FieldStats) (out []string) {
		for _, f := range fs {
			out = append(out, f.Field)
		}
		return out
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"drifted", names(n.Drifted), []string{"CurrencyCode", "Memo"}},
		{"new", names(n.New), []string{"Surprise"}},
		{"absent", names(n.Absent), []string{"PONumber"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	if n.Empty() || n.Coerced() != 1 || n.Untyped() != 1 {
		t.Errorf("empty %v, coerced %d, untyped %d; want false, 1, 1", n.Empty(), n.Coerced(), n.Untyped())
	}
	if !(manifest.FieldNotes{}).Empty() {
		t.Error("no notes are not empty")
	}
}
