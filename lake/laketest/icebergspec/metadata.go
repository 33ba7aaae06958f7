//go:build lake

package icebergspec

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// requiredMetadata are the table metadata fields each format version
// requires (spec, Table Metadata Fields); "a|b" is satisfied by either (v1's
// deprecated schema and partition-spec, or their lists).
var requiredMetadata = map[int][]string{
	1: {"format-version", "location", "last-updated-ms", "last-column-id",
		"schema|schemas", "partition-spec|partition-specs"},
	2: {"format-version", "table-uuid", "location", "last-sequence-number",
		"last-updated-ms", "last-column-id", "schemas", "current-schema-id",
		"partition-specs", "default-spec-id", "last-partition-id",
		"sort-orders", "default-sort-order-id"},
}

// requiredSnapshot are the snapshot fields each format version requires
// (spec, Snapshots).
var requiredSnapshot = map[int][]string{
	1: {"snapshot-id", "timestamp-ms", "manifest-list|manifests"},
	2: {"snapshot-id", "sequence-number", "timestamp-ms", "manifest-list", "summary"},
}

// operations are the values of a snapshot summary's operation.
var operations = []string{"append", "replace", "overwrite", "delete"}

type metadataJSON struct {
	FormatVersion      int                `json:"format-version"`
	Location           string             `json:"location"`
	LastSequenceNumber int64              `json:"last-sequence-number"`
	LastColumnID       int                `json:"last-column-id"`
	Schema             *schemaJSON        `json:"schema"`
	Schemas            []schemaJSON       `json:"schemas"`
	CurrentSchemaID    *int               `json:"current-schema-id"`
	PartitionSpecs     []specJSON         `json:"partition-specs"`
	DefaultSpecID      *int               `json:"default-spec-id"`
	SortOrders         []sortOrderJSON    `json:"sort-orders"`
	DefaultSortOrderID *int               `json:"default-sort-order-id"`
	Properties         map[string]string  `json:"properties"`
	CurrentSnapshotID  *int64             `json:"current-snapshot-id"`
	Snapshots          []json.RawMessage  `json:"snapshots"`
	Refs               map[string]refJSON `json:"refs"`
	MetadataLog        []metadataLogJSON  `json:"metadata-log"`
}

type metadataLogJSON struct {
	MetadataFile string `json:"metadata-file"`
}

type schemaJSON struct {
	SchemaID int         `json:"schema-id"`
	Fields   []fieldJSON `json:"fields"`
}

type fieldJSON struct {
	ID       *int            `json:"id"`
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Required bool            `json:"required"`
}

type specJSON struct {
	SpecID int `json:"spec-id"`
}

type sortOrderJSON struct {
	OrderID int `json:"order-id"`
}

type refJSON struct {
	SnapshotID int64 `json:"snapshot-id"`
}

type snapshotJSON struct {
	SnapshotID     int64             `json:"snapshot-id"`
	ParentID       *int64            `json:"parent-snapshot-id"`
	SequenceNumber int64             `json:"sequence-number"`
	TimestampMs    int64             `json:"timestamp-ms"`
	ManifestList   string            `json:"manifest-list"`
	Manifests      []string          `json:"manifests"`
	Summary        map[string]string `json:"summary"`
	SchemaID       *int              `json:"schema-id"`
}

// metadata reads and checks the table metadata file at loc; ok is false
// when it could not be read at all.
func (r *reader) metadata(loc string) (t Table, ok bool) {
	t = Table{MetadataLocation: loc, CurrentSnapshotID: -1}
	var m metadataJSON
	fields, err := r.readJSON(loc, &m)
	if err != nil {
		r.problem(loc, "%v", err)
		return t, false
	}
	required, known := requiredMetadata[m.FormatVersion]
	if !known {
		r.problem(loc, "format-version %s: not 1 or 2", fields["format-version"])
		return t, false
	}
	r.require(loc, "table metadata", fields, required)
	t.Location, t.FormatVersion, t.LastColumnID, t.Properties = m.Location, m.FormatVersion, m.LastColumnID, m.Properties
	for _, e := range m.MetadataLog {
		t.MetadataLog = append(t.MetadataLog, e.MetadataFile)
	}
	r.schemas(loc, &t, &m)
	r.defaults(loc, &m)
	for i, raw := range m.Snapshots {
		r.snapshotJSON(loc, i, raw, &t)
	}
	r.checkSnapshots(loc, &t, &m)
	return t, true
}

// readJSON decodes the JSON object in the file at loc (GZIP compressed or
// not, as a metadata file may be) into v, and returns its fields.
func (r *reader) readJSON(loc string, v any) (map[string]json.RawMessage, error) {
	b, err := r.readAll(loc)
	if err == nil && bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(b)); err == nil {
			b, err = io.ReadAll(zr)
		}
	}
	if err != nil {
		return nil, err
	}
	return object(b, v)
}

// object decodes the JSON object b into v, and returns its fields.
func object(b []byte, v any) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	return fields, json.Unmarshal(b, v)
}

// require reports at loc each of names that fields (of what) lacks, or
// has as null.
func (r *reader) require(loc, what string, fields map[string]json.RawMessage, names []string) {
	for _, name := range names {
		if !present(fields, name) {
			r.problem(loc, "%s: no %s", what, name)
		}
	}
}

// present says whether fields has name, or one of "a|b", not null.
func present(fields map[string]json.RawMessage, name string) bool {
	for _, alt := range strings.Split(name, "|") {
		if v, ok := fields[alt]; ok && string(v) != "null" {
			return true
		}
	}
	return false
}

// schemas reads the schemas of m into t and checks them: IDs unique, the
// current one among them, field IDs unique, positive, at most
// last-column-id.
func (r *reader) schemas(loc string, t *Table, m *metadataJSON) {
	list := m.Schemas
	if len(list) == 0 && m.Schema != nil {
		list = []schemaJSON{*m.Schema}
	}
	t.Schemas = map[int]Schema{}
	for _, sj := range list {
		if _, dup := t.Schemas[sj.SchemaID]; dup {
			r.problem(loc, "schema-id %d: more than one schema", sj.SchemaID)
		}
		t.Schemas[sj.SchemaID] = r.schema(loc, sj, m.LastColumnID)
	}
	switch {
	case m.CurrentSchemaID != nil:
		t.CurrentSchemaID = *m.CurrentSchemaID
	case m.Schema != nil:
		t.CurrentSchemaID = m.Schema.SchemaID
	}
	if _, ok := t.Schemas[t.CurrentSchemaID]; !ok {
		r.problem(loc, "current-schema-id %d names no schema", t.CurrentSchemaID)
	}
}

// schema is sj, checked.
func (r *reader) schema(loc string, sj schemaJSON, lastColumnID int) Schema {
	s := Schema{ID: sj.SchemaID}
	ids := map[int]bool{}
	for i, fj := range sj.Fields {
		f := Field{Name: fj.Name, Type: typeName(fj.Type), Required: fj.Required}
		where := fmt.Sprintf("schema %d: field %d (%q)", sj.SchemaID, i, fj.Name)
		switch {
		case fj.ID == nil:
			r.problem(loc, "%s: no id", where)
		case *fj.ID <= 0 || *fj.ID > lastColumnID:
			r.problem(loc, "%s: id %d not in 1..last-column-id (%d)", where, *fj.ID, lastColumnID)
		case ids[*fj.ID]:
			r.problem(loc, "%s: id %d used twice", where, *fj.ID)
		}
		if fj.ID != nil {
			f.ID, ids[*fj.ID] = *fj.ID, true
		}
		if f.Name == "" || f.Type == "" {
			r.problem(loc, "%s: no name or no type", where)
		}
		s.Fields = append(s.Fields, f)
	}
	return s
}

// typeName is a field's JSON type: the string of a primitive type, the
// "type" of a nested one.
func typeName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var nested struct {
		Type string `json:"type"`
	}
	json.Unmarshal(raw, &nested)
	return nested.Type
}

// defaults notes the IDs of the table's partition specs, and checks that
// the default partition spec and sort order are
// among the table's.
func (r *reader) defaults(loc string, m *metadataJSON) {
	for _, s := range m.PartitionSpecs {
		r.specs = append(r.specs, s.SpecID)
	}
	if len(m.PartitionSpecs) == 0 {
		r.specs = []int{0} // v1's partition-spec
	}
	if m.DefaultSpecID != nil && !slices.ContainsFunc(m.PartitionSpecs, func(s specJSON) bool { return s.SpecID == *m.DefaultSpecID }) {
		r.problem(loc, "default-spec-id %d names no partition spec", *m.DefaultSpecID)
	}
	if m.DefaultSortOrderID != nil && !slices.ContainsFunc(m.SortOrders, func(s sortOrderJSON) bool { return s.OrderID == *m.DefaultSortOrderID }) {
		r.problem(loc, "default-sort-order-id %d names no sort order", *m.DefaultSortOrderID)
	}
}
