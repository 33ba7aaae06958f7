//go:build lake

package icebergspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/linkedin/goavro/v2"
)

// field is a field of a manifest list or manifest: its Iceberg field ID and
// its name in the spec.
type field struct {
	id   int
	name string
}

// avroFile is an Avro object container file: its records, its metadata,
// and the names of its fields by Iceberg field ID.
type avroFile struct {
	loc   string
	size  int64
	meta  map[string][]byte
	names map[int]string
	recs  []map[string]any
}

// readAvro reads the Avro object container file at loc; on an error in its
// records, it returns the records before it too.
func (r *reader) readAvro(loc string) (*avroFile, error) {
	b, err := r.readAll(loc)
	if err != nil {
		return nil, err
	}
	ocf, err := goavro.NewOCFReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	a := &avroFile{loc: loc, size: int64(len(b)), meta: ocf.MetaData(), names: map[int]string{}}
	var schema any
	if err := json.Unmarshal(a.meta["avro.schema"], &schema); err != nil {
		return nil, fmt.Errorf("avro.schema: %w", err)
	}
	fieldIDs(schema, a.names)
	for ocf.Scan() {
		datum, err := ocf.Read()
		if err != nil {
			return a, err
		}
		rec, ok := datum.(map[string]any)
		if !ok {
			return a, fmt.Errorf("record %d is a %T, not a record", len(a.recs), datum)
		}
		a.recs = append(a.recs, rec)
	}
	return a, ocf.Err()
}

// fieldIDs adds to names the name of each field of the Avro schema s that
// has a field-id.
func fieldIDs(s any, names map[int]string) {
	switch s := s.(type) {
	case []any:
		for _, e := range s {
			fieldIDs(e, names)
		}
	case map[string]any:
		id, isID := s["field-id"].(float64)
		if name, ok := s["name"].(string); ok && isID {
			names[int(id)] = name
		}
		for _, v := range s {
			fieldIDs(v, names)
		}
	}
}

// version is the format version the file's metadata states, or fallback.
func (a *avroFile) version(fallback int) int {
	if v, err := strconv.Atoi(string(a.meta["format-version"])); err == nil {
		return v
	}
	return fallback
}

// unionBranches are the names goavro gives the non-null branch of a union
// (a map of that name to the value) that the fields read here have.
var unionBranches = []string{"int", "long", "string", "boolean", "bytes", "array", "map"}

// value is the value of the field f of rec: nil when absent or null; the
// value of its branch when a union.
func (a *avroFile) value(rec map[string]any, f field) any {
	name := a.names[f.id]
	if name == "" {
		name = f.name
	}
	v := rec[name]
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for branch, inner := range m {
			if slices.Contains(unionBranches, branch) {
				return inner
			}
		}
	}
	return v
}

// missing are the names of the fields of rec that are absent or null.
func (a *avroFile) missing(rec map[string]any, fields ...field) []string {
	var out []string
	for _, f := range fields {
		if a.value(rec, f) == nil {
			out = append(out, f.name)
		}
	}
	return out
}

func (a *avroFile) long(rec map[string]any, f field) (int64, bool) {
	return toLong(a.value(rec, f))
}

// optLong is the value of the long (or int) field f of rec; nil when absent.
func (a *avroFile) optLong(rec map[string]any, f field) *int64 {
	if n, ok := a.long(rec, f); ok {
		return &n
	}
	return nil
}

func (a *avroFile) str(rec map[string]any, f field) (string, bool) {
	s, ok := a.value(rec, f).(string)
	return s, ok
}

func (a *avroFile) record(rec map[string]any, f field) (map[string]any, bool) {
	m, ok := a.value(rec, f).(map[string]any)
	return m, ok
}

// counts is the map<int, long> field f of rec, stored as Iceberg stores a
// map with non-string keys in Avro: an array of key/value records; nil
// when absent.
func (a *avroFile) counts(rec map[string]any, f field) map[int]int64 {
	items, ok := a.value(rec, f).([]any)
	if !ok {
		return nil
	}
	out := make(map[int]int64, len(items))
	for _, item := range items {
		kv, _ := item.(map[string]any)
		k, okK := toLong(kv["key"])
		v, okV := toLong(kv["value"])
		if okK && okV {
			out[int(k)] = v
		}
	}
	return out
}

// toLong is v as an int64 when it is an Avro long or int.
func toLong(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	}
	return 0, false
}
