package config

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// documentedKeys reads the block of every key in docs/configuration.md.
func documentedKeys(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "<!-- every-key -->\n```yaml\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- /every-key -->")
	if !ok || !ok2 {
		t.Fatal("docs/configuration.md has no block between <!-- every-key --> and <!-- /every-key -->")
	}
	return []byte(block)
}

// The block of every key in docs/configuration.md names every key of
// Config, and each with its default: the document cannot go stale.
func TestTheDocumentedDefaultsAreTheDefaults(t *testing.T) {
	block := documentedKeys(t)
	var doc Config
	dec := yaml.NewDecoder(bytes.NewReader(block))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("docs/configuration.md: %v", err)
	}
	want := Default()
	want.BaseURL, want.FrontURL = doc.BaseURL, doc.FrontURL
	if doc.BaseURL == "" || doc.FrontURL == "" {
		t.Error("docs/configuration.md shows no example base_url or front_url")
	}
	got, _ := yaml.Marshal(doc)
	exp, _ := yaml.Marshal(want)
	if !bytes.Equal(got, exp) {
		t.Errorf("docs/configuration.md's defaults differ from Default():\ndoc:\n%s\ncode:\n%s", got, exp)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(block, &root); err != nil {
		t.Fatal(err)
	}
	shown := keysOf(root.Content[0], "")
	for _, k := range keysOfType(reflect.TypeFor[Config](), "") {
		if !slices.Contains(shown, k) {
			t.Errorf("docs/configuration.md does not show the key %s", k)
		}
	}
}

// keysOf lists the dotted keys of a mapping node, nested mappings included.
func keysOf(n *yaml.Node, prefix string) []string {
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := prefix + n.Content[i].Value
		keys = append(keys, k)
		if v := n.Content[i+1]; v.Kind == yaml.MappingNode {
			keys = append(keys, keysOf(v, k+".")...)
		}
	}
	return keys
}

// keysOfType lists the dotted yaml keys of a struct type, into nested
// structs (not into maps or lists).
func keysOfType(t reflect.Type, prefix string) []string {
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		keys = append(keys, prefix+name)
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == t.PkgPath() {
			keys = append(keys, keysOfType(f.Type, prefix+name+".")...)
		}
	}
	return keys
}
