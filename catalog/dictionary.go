package catalog

import (
	"fmt"
	"strings"
)

// The data dictionary of the catalogue's tables: every column of a
// table's rows described, with the service's field it comes from and its
// codes. The read model's columns and codes relations are made from it,
// and docs/fields.md lists the codes (CodesDoc), so that neither can say
// otherwise than the catalogue.

// ColumnDoc is what the data dictionary says of one column of a table's
// rows: its name, its DuckDB type as DuckDB spells it in
// information_schema and typeof (TIMESTAMP WITH TIME ZONE, not
// TIMESTAMPTZ), what it holds, the service's JSON field it comes from
// ("" for billsnap's own columns) and its codes (none unless coded).
type ColumnDoc struct {
	Name, Type, Description, Field string
	Codes                          []Code
}

// typeNames are the kinds' DuckDB types as information_schema spells
// them.
var typeNames = map[Kind]string{String: "VARCHAR", Timestamp: "TIMESTAMP WITH TIME ZONE", Money: "DECIMAL(18,2)", Quantity: "DECIMAL(18,4)",
	Int32: "INTEGER", Int64: "BIGINT", Bool: "BOOLEAN", Float: "DOUBLE"}

// TypeName is the kind's DuckDB type as information_schema spells it.
func (k Kind) TypeName() string { return typeNames[k] }

// Docs are the table's columns in Parquet order (without snapshot_id),
// each described: id, the parent's ID on a child table, the typed
// columns, _raw.
func (t Table) Docs() []ColumnDoc {
	out := []ColumnDoc{t.idDoc()}
	if t.ParentColumn != "" {
		out = append(out, t.parentDoc())
	}
	for _, c := range t.Columns {
		out = append(out, ColumnDoc{Name: c.Name, Type: c.Kind.TypeName(), Description: c.Description, Field: c.Field, Codes: c.Codes})
	}
	return append(out, ColumnDoc{Name: "_raw", Type: "JSON",
		Description: "the record as the service sent it (JSON), every field typed or not; bytes not valid UTF-8 written as \\xHH"})
}

// idDoc describes the table's id: the service's ID, but for a pricing
// (whose key billsnap makes) and a line without one.
func (t Table) idDoc() ColumnDoc {
	d := ColumnDoc{Name: "id", Type: "VARCHAR", Field: "ID", Description: "the " + t.noun() + "'s ID in the service (a GUID)"}
	for _, ch := range children[CollectionOf(t.Name)] {
		switch {
		case ch.Table != t.Name:
		case len(ch.KeyColumns) > 0:
			d.Field = ""
			d.Description = fmt.Sprintf("the %s's key, made by billsnap: its %s joined by /; <plan id>/<position> when one has no value",
				t.noun(), strings.Join(t.keyFields(ch.KeyColumns), " and "))
		case !ch.ItemContract:
			d.Description += "; <parent id>/<position> for one sent without an ID"
		}
	}
	return d
}

// keyFields are the service's fields of the columns named.
func (t Table) keyFields(columns []string) []string {
	var out []string
	for _, name := range columns {
		for _, c := range t.Columns {
			if c.Name == name {
				out = append(out, c.Field)
			}
		}
	}
	return out
}

// parentDoc describes a child table's parent ID column: billsnap's,
// the ID of the record whose nested list held the row.
func (t Table) parentDoc() ColumnDoc {
	parent := CollectionOf(t.Name)
	field := ""
	for _, ch := range children[parent] {
		if ch.Table == t.Name {
			field = ch.Field
		}
	}
	noun := Table{Name: parent}.noun()
	return ColumnDoc{Name: t.ParentColumn, Type: "VARCHAR",
		Description: fmt.Sprintf("the %s whose %s held the %s (%s.id)", noun, field, t.noun(), parent)}
}

// noun is what one row of the table is: customer, unit of measure.
func (t Table) noun() string {
	words := strings.Split(t.Name, "_")
	if i := len(words) - 1; words[0] != "units" {
		words[i] = strings.TrimSuffix(words[i], "s")
	} else {
		words[0] = "unit"
	}
	return strings.Join(words, " ")
}

// LabelColumn is the name of the column beside coded column name that
// holds its codes' labels: status_label.
func LabelColumn(name string) string { return name + "_label" }

// WithoutLabels is the SQL of rel, a relation of the table with a label
// beside each coded column (LabelColumn, as the read model's views have
// them), without the labels: the columns as the Parquet has them.
func (t Table) WithoutLabels(rel string) string {
	var labels []string
	for _, d := range t.Docs() {
		if len(d.Codes) > 0 {
			labels = append(labels, `"`+LabelColumn(d.Name)+`"`)
		}
	}
	if len(labels) == 0 {
		return "SELECT * FROM " + rel
	}
	return fmt.Sprintf("SELECT * EXCLUDE (%s) FROM %s", strings.Join(labels, ", "), rel)
}

// CodesDoc is the codes of every coded column of tables, as
// docs/fields.md lists them: a Markdown table.
func CodesDoc(tables []Table) string {
	var b strings.Builder
	b.WriteString("| table | column (field) | code | label |\n| --- | --- | --- | --- |\n")
	for _, t := range tables {
		for _, c := range t.Columns {
			for _, code := range c.Codes {
				fmt.Fprintf(&b, "| %s | %s (%s) | `%s` | %s |\n", t.Name, c.Name, c.Field, code.Code, code.Label)
			}
		}
	}
	return b.String()
}
