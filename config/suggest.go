package config

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/billsnap/billsnap/internal/nearest"
	"gopkg.in/yaml.v3"
)

// keysByType are the YAML keys each struct type of the configuration
// takes, by the type's name as yaml.v3 gives it ("config.Config",
// "extract.Retry"); inline structs' keys are their parent's.
var keysByType = sync.OnceValue(func() map[string][]string {
	keys := map[string][]string{}
	addKeys(reflect.TypeFor[Config](), keys)
	return keys
})

// addKeys records the keys of t and of every struct type under it.
func addKeys(t reflect.Type, keys map[string][]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || keys[t.String()] != nil {
		return
	}
	keys[t.String()] = fieldKeys(t, keys)
}

// fieldKeys are the keys of struct t's fields, those of its inline
// structs among them; it records the struct types under them in keys.
func fieldKeys(t reflect.Type, keys map[string][]string) []string {
	var names []string
	for f := range t.Fields() {
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case strings.Contains(","+opts+",", ",inline,"):
			names = append(names, fieldKeys(f.Type, keys)...)
			continue
		case name == "":
			name = strings.ToLower(f.Name)
		}
		names = append(names, name)
		addKeys(f.Type, keys)
	}
	return names
}

// suggestKey is ` (did you mean "retry.max_attempts"?)` for the unknown
// key name of type typ on line, the nearest key that type takes with the
// keys above it in root; "" when none is near.
func suggestKey(root *yaml.Node, line int, name, typ string) string {
	near, ok := nearest.Of(name, keysByType()[typ])
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", parentOf(root, line, name)+near)
}

// parentOf is the dotted path above the key name on line ("retry."), or
// "" when the key is at the top or under a list.
func parentOf(n *yaml.Node, line int, name string) string {
	prefix, _ := findKey(n, line, name, "")
	return prefix
}

// findKey finds the mapping key name on line under n, and the path to it.
func findKey(n *yaml.Node, line int, name, prefix string) (string, bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p, ok := findKey(c, line, name, prefix); ok {
				return p, true
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if _, ok := findKey(c, line, name, ""); ok {
				return "", true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Line == line && k.Value == name {
				return prefix, true
			}
			if p, ok := findKey(v, line, name, prefix+k.Value+"."); ok {
				return p, true
			}
		}
	}
	return "", false
}
