//go:build lake

package icebergspec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// snapshotJSON reads the i-th snapshot of the metadata file at loc into t.
func (r *reader) snapshotJSON(loc string, i int, raw json.RawMessage, t *Table) {
	var sj snapshotJSON
	what := fmt.Sprintf("snapshot %d", i)
	fields, err := object(raw, &sj)
	if err != nil {
		r.problem(loc, "%s: %v", what, err)
		return
	}
	r.require(loc, what, fields, requiredSnapshot[t.FormatVersion])
	if sj.ManifestList != "" && fields["manifests"] != nil {
		r.problem(loc, "%s: both manifest-list and manifests", what)
	}
	s := Snapshot{ID: sj.SnapshotID, ParentID: sj.ParentID, SequenceNumber: sj.SequenceNumber,
		TimestampMs: sj.TimestampMs, SchemaID: sj.SchemaID, Summary: sj.Summary, ManifestList: sj.ManifestList}
	if s.ManifestList == "" {
		s.Manifests = sj.Manifests
	}
	t.Snapshots = append(t.Snapshots, s)
}

// checkSnapshots checks the snapshots of t (read from the metadata m at
// loc), what names them (current-snapshot-id, refs) and how they relate.
func (r *reader) checkSnapshots(loc string, t *Table, m *metadataJSON) {
	byID := map[int64]*Snapshot{}
	for i := range t.Snapshots {
		s := &t.Snapshots[i]
		if byID[s.ID] != nil {
			r.problem(loc, "snapshot-id %d: more than one snapshot", s.ID)
		}
		byID[s.ID] = s
	}
	for _, s := range t.Snapshots {
		r.checkSnapshot(loc, t, m.LastSequenceNumber, s, byID)
	}
	if m.CurrentSnapshotID != nil && *m.CurrentSnapshotID != -1 {
		t.CurrentSnapshotID = *m.CurrentSnapshotID
		if byID[t.CurrentSnapshotID] == nil {
			r.problem(loc, "current-snapshot-id %d names no snapshot", t.CurrentSnapshotID)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.Refs)) {
		if id := m.Refs[name].SnapshotID; byID[id] == nil {
			r.problem(loc, "refs %q: snapshot-id %d names no snapshot", name, id)
		}
	}
	if main, ok := m.Refs["main"]; ok && main.SnapshotID != t.CurrentSnapshotID {
		r.problem(loc, "refs main: snapshot-id %d is not current-snapshot-id %d", main.SnapshotID, t.CurrentSnapshotID)
	}
}

// checkSnapshot checks s against the schemas of t and, in v2, the sequence
// numbers of the table (lastSeq) and of its parent. A parent-snapshot-id
// that names no snapshot is one that expired: allowed.
func (r *reader) checkSnapshot(loc string, t *Table, lastSeq int64, s Snapshot, byID map[int64]*Snapshot) {
	what := fmt.Sprintf("snapshot %d", s.ID)
	if s.SchemaID != nil {
		if _, ok := t.Schemas[*s.SchemaID]; !ok {
			r.problem(loc, "%s: schema-id %d names no schema", what, *s.SchemaID)
		}
	}
	if op := s.Summary["operation"]; s.Summary != nil && !slices.Contains(operations, op) {
		r.problem(loc, "%s: summary operation %q is not one of %v", what, op, operations)
	}
	if t.FormatVersion < 2 {
		return
	}
	if s.SequenceNumber > lastSeq {
		r.problem(loc, "%s: sequence-number %d above last-sequence-number %d", what, s.SequenceNumber, lastSeq)
	}
	if s.ParentID == nil || byID[*s.ParentID] == nil {
		return
	}
	if p := byID[*s.ParentID]; p.SequenceNumber >= s.SequenceNumber {
		r.problem(loc, "%s: sequence-number %d not above its parent %d's (%d)", what, s.SequenceNumber, p.ID, p.SequenceNumber)
	}
}
