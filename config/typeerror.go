package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// yamlTypeError is yaml.v3's line for a value of the wrong type.
var yamlTypeError = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")

// plainTypeError rewrites one of yaml.v3's error lines for a value of the
// wrong type ("line 3: cannot unmarshal !!int `5` into time.Duration") in
// plain words, naming the key's full path, what it wants and what it
// got: "line 3: timeout: want a duration such as 30s, got the number 5".
// It is false for any other line.
func plainTypeError(l string, root *yaml.Node) (string, bool) {
	m := yamlTypeError.FindStringSubmatch(l)
	if m == nil {
		return "", false
	}
	line, _ := strconv.Atoi(m[1])
	key := keyOn(root, line, nodeKind(m[2]), "")
	want := "a value of type " + m[4]
	if t, ok := fieldType(reflect.TypeFor[Config](), key); ok {
		want = wanted(t)
	}
	if key == "" {
		return fmt.Sprintf("line %d: want %s, got %s", line, want, got(m[2], m[3])), true
	}
	return fmt.Sprintf("line %d: %s: want %s, got %s", line, key, want, got(m[2], m[3])), true
}

// keyOn is the full path of the deepest key whose value starts on line
// and is of kind ("workspace.identity", "schedules[0].cron"), or "".
func keyOn(n *yaml.Node, line int, kind yaml.Kind, prefix string) string {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return keyOn(n.Content[0], line, kind, prefix)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if found := keyOn(v, line, kind, prefix+k.Value+"."); found != "" {
				return found
			}
			if v.Line == line && v.Kind == kind {
				return prefix + k.Value
			}
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			if found := keyOn(v, line, kind, fmt.Sprintf("%s[%d].", strings.TrimSuffix(prefix, "."), i)); found != "" {
				return found
			}
		}
	}
	return ""
}

// nodeKind is the kind of node yaml.v3's tag names.
func nodeKind(tag string) yaml.Kind {
	switch tag {
	case "seq":
		return yaml.SequenceNode
	case "map":
		return yaml.MappingNode
	}
	return yaml.ScalarNode
}

// fieldType is the Go type of the value at key's path in t, following
// the yaml tags (inline structs included), list indexes and map keys.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	if key == "" {
		return nil, false
	}
	for part := range strings.SplitSeq(key, ".") {
		name, index, _ := strings.Cut(part, "[")
		var ok bool
		if t, ok = member(t, name); !ok {
			return nil, false
		}
		for ; index != ""; _, index, _ = strings.Cut(index, "[") {
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return nil, false
			}
			t = t.Elem()
		}
	}
	return t, true
}

// member is the type of t's field (or map value) name.
func member(t reflect.Type, name string) (reflect.Type, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Map {
		return t.Elem(), true
	}
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			if ft, ok := member(f.Type, name); ok {
				return ft, true
			}
			continue
		}
		if tag == "" {
			tag = strings.ToLower(f.Name)
		}
		if tag == name && f.IsExported() {
			return f.Type, true
		}
	}
	return nil, false
}

// wanted says in words what a value of type t is.
func wanted(t reflect.Type) string {
	if t == reflect.TypeFor[time.Duration]() {
		return "a duration such as 30s"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number such as 8"
	case reflect.Float32, reflect.Float64:
		return "a number such as 0.5"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "one value (text)"
	case reflect.Slice, reflect.Array:
		return "a list (lines beginning with -, or [a, b])"
	case reflect.Map:
		return "a mapping (key: value lines)"
	case reflect.Struct, reflect.Pointer:
		return "a section (key: value lines)"
	}
	return "a value of type " + t.String()
}

// got says in words what yaml.v3 found: a value of the tag (int, str,
// seq…) written as value.
func got(tag, value string) string {
	switch tag {
	case "int", "float":
		return "the number " + value
	case "bool":
		return value
	case "str":
		return strconv.Quote(value)
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "null":
		return "nothing"
	case "timestamp":
		return "the date " + value
	}
	return "a " + tag + " " + value
}
