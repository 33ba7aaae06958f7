package catalog

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/configkey"
)

// ApplyFields returns Tables with the configuration's fields key applied.
// Under a table, an entry named for one of its assumed columns reads that
// column from another JSON field; an entry with another name adds a
// typed column (an assumed one) after the table's own. Every problem is a
// *configkey.Error naming its key, all of them joined:
//   - an unknown table, or a column of the spec's (a contract column);
//   - a field missing, "ID", or a nested list's; one field for two columns;
//   - for an added column: a name that is not snake_case or is taken
//     (id, snapshot_id, _raw, the parent's ID), a type missing or unknown;
//   - for a column billsnap has: a type other than its own.
func ApplyFields(fields Mapping) ([]Table, error) {
	out := slices.Clone(tables)
	var errs []error
	for _, table := range slices.Sorted(maps.Keys(fields)) {
		i := slices.IndexFunc(out, func(t Table) bool { return t.Name == table })
		if i < 0 {
			errs = append(errs, &configkey.Error{Key: "fields." + table, Msg: "unknown table; known: " + strings.Join(tableNames(), ", ")})
			continue
		}
		t, err := applyTable(out[i], fields[table])
		errs = append(errs, err)
		out[i] = t
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// applyTable applies the entries of one table.
func applyTable(t Table, entries map[string]FieldMap) (Table, error) {
	t.Columns = slices.Clone(t.Columns)
	var errs []error
	bad := func(column, format string, args ...any) {
		errs = append(errs, &configkey.Error{Key: "fields." + t.Name + "." + column, Msg: fmt.Sprintf(format, args...)})
	}
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		e := entries[name]
		if msg := badField(t, e.Field); msg != "" {
			bad(name, "%s", msg)
			continue
		}
		if i := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name }); i >= 0 {
			if msg := remap(&t.Columns[i], e); msg != "" {
				bad(name, "%s", msg)
			}
			continue
		}
		c, msg := added(t, name, e)
		if msg != "" {
			bad(name, "%s", msg)
			continue
		}
		t.Columns = append(t.Columns, c)
	}
	return t, errors.Join(append(errs, oneColumnPerField(t))...)
}

// remap reads c from e's field; the message says why it cannot.
func remap(c *Column, e FieldMap) string {
	switch {
	case c.Contract:
		return fmt.Sprintf("%s is a field the spec defines (a contract): its name and type are the spec's", c.Field)
	case e.Type != "" && e.Type != c.Kind.String():
		return fmt.Sprintf("the column is a %s column; type %q cannot change that (leave type out)", c.Kind, e.Type)
	}
	c.Field = e.Field
	return ""
}

var columnName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

// added is the column e adds to t as name; the message says why it cannot.
func added(t Table, name string, e FieldMap) (Column, string) {
	k, ok := KindNamed(e.Type)
	switch {
	case !columnName.MatchString(name):
		return Column{}, "a new column's name must be snake_case: a-z, 0-9 and _, starting with a letter"
	case name == "id" || name == "snapshot_id" || name == "_raw" || name == t.ParentColumn:
		return Column{}, fmt.Sprintf("%s is a column of every row; choose another name", name)
	case labelled(t, name):
		return Column{}, fmt.Sprintf("%s is the label beside a coded column in the read model; choose another name", name)
	case e.Type == "":
		return Column{}, "a new column needs a type: " + strings.Join(kindNames, ", ")
	case !ok:
		return Column{}, fmt.Sprintf("unknown type %q; known: %s", e.Type, strings.Join(kindNames, ", "))
	}
	return Column{Name: name, Field: e.Field, Kind: k,
		Description: fmt.Sprintf("the service's field %s, as a %s: a column the configuration's fields key adds", e.Field, k)}, ""
}

// labelled tells whether name is the label column of a coded column of t.
func labelled(t Table, name string) bool {
	return slices.ContainsFunc(t.Columns, func(c Column) bool { return len(c.Codes) > 0 && LabelColumn(c.Name) == name })
}

// badField says what is wrong with field as the source of a column of t.
func badField(t Table, field string) string {
	switch {
	case strings.TrimSpace(field) == "":
		return "needs a field: the JSON field the column is read from"
	case field == "ID":
		return "ID is the record's identifier, in the id column"
	}
	for _, ch := range children[t.Name] {
		if ch.Field == field {
			return fmt.Sprintf("%s is a nested list: its items are the table %s", field, ch.Table)
		}
	}
	return ""
}

// oneColumnPerField is an error when two columns of t read one field.
func oneColumnPerField(t Table) error {
	seen := map[string]string{}
	var errs []error
	for _, c := range t.Columns {
		if other, ok := seen[c.Field]; ok {
			errs = append(errs, &configkey.Error{Key: "fields." + t.Name + "." + c.Name,
				Msg: fmt.Sprintf("field %s is read by column %s already; map that column to another field too", c.Field, other)})
		}
		seen[c.Field] = c.Name
	}
	return errors.Join(errs...)
}

func tableNames() []string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	return names
}
