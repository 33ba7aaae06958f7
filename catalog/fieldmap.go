package catalog

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Mapping maps, per table and column, where a typed column's value comes
// from: a column billsnap has, read from a JSON field of another name, or
// a column added for a field the service sends.
type Mapping map[string]map[string]FieldMap

// FieldMap is one entry of the fields key, under a table and a column
// name: the JSON field the column is read from, and for a column that
// billsnap does not have, its type. In the file it is either the field's
// name alone or {field: NAME, type: TYPE}.
type FieldMap struct {
	Field string `yaml:"field"`
	Type  string `yaml:"type"` // string, timestamp, money, quantity, integer, bigint, boolean or number
}

// UnmarshalYAML reads the short form (a field name) or the long one; an
// unknown key in the long one is an error naming it and its line.
func (f *FieldMap) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		f.Field = n.Value
		return nil
	case yaml.MappingNode:
	default:
		return fmt.Errorf("line %d: want a field name or {field: NAME, type: TYPE}", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: %s: want a string", v.Line, k.Value)
		}
		switch k.Value {
		case "field":
			f.Field = v.Value
		case "type":
			f.Type = v.Value
		default:
			return fmt.Errorf("line %d: unknown key %q (want field and type)", k.Line, k.Value)
		}
	}
	return nil
}
