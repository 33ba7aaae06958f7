//go:build lake

// Package icebergspec reads the metadata of an Apache Iceberg table (format
// versions 1 and 2) by the table spec, https://iceberg.apache.org/spec/,
// and checks it against the spec, so that tests can check the tables
// billsnap writes with an implementation that shares no code with the one
// that wrote them: the metadata JSON with encoding/json, the manifest lists
// and manifests (Avro object container files) with
// github.com/linkedin/goavro/v2.
//
// Avro fields are found by their Iceberg field ID (the field-id of the
// file's Avro schema), by the spec's field name when the schema has none.
package icebergspec

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Open opens a file of the lake by its full URL or path as written in the
// metadata (e.g. s3://lake/prefix/t/metadata/x.avro or
// file:///tmp/lake/t/...).
type Open func(ctx context.Context, location string) (io.ReadCloser, error)

// Table is what a table metadata file and the files it references say.
type Table struct {
	Location, MetadataLocation string
	FormatVersion              int
	CurrentSchemaID            int
	Schemas                    map[int]Schema // by schema ID
	LastColumnID               int
	CurrentSnapshotID          int64      // -1 when none
	Snapshots                  []Snapshot // in the metadata's order
	Properties                 map[string]string
	// MetadataLog are the earlier metadata files its metadata-log keeps.
	MetadataLog []string
}

// Schema is a schema of the table: its top-level fields only (billsnap's
// tables are flat).
type Schema struct {
	ID     int
	Fields []Field
}

// Field is a top-level field of a schema. Type is as the JSON says:
// "string", "decimal(18,2)", "timestamptz", ...; for a nested type, its
// kind: "struct", "list" or "map".
type Field struct {
	ID       int
	Name     string
	Type     string
	Required bool
}

// Snapshot is a snapshot of the table. SequenceNumber is 0 in a v1 table.
// ManifestList is "" for a v1 snapshot that lists its manifests in the
// metadata instead.
type Snapshot struct {
	ID             int64
	ParentID       *int64
	SequenceNumber int64
	TimestampMs    int64
	SchemaID       *int
	Summary        map[string]string
	ManifestList   string
	// Manifests are the locations of its manifests (data and delete), in
	// its manifest list's order.
	Manifests []string
	// DataFiles are the live data files of the snapshot: the entries with
	// status ADDED (1) or EXISTING (0) in its data manifests (content 0),
	// in manifest order.
	DataFiles []DataFile
}

// DataFile is a data file of a manifest entry. The maps are by field ID,
// nil when the manifest has none.
type DataFile struct {
	Path, Format                         string
	RecordCount, FileSize                int64
	ColumnSizes, ValueCounts, NullCounts map[int]int64
}

// Read reads the metadata file at metadataLocation, and for every snapshot
// its manifest list and manifests, through open; it checks them against the
// spec and returns every problem found, joined (errors.Join), each naming
// the file and what is wrong; the Table holds what could be read.
func Read(ctx context.Context, open Open, metadataLocation string) (Table, error) {
	r := &reader{ctx: ctx, open: open}
	t, ok := r.metadata(metadataLocation)
	if ok {
		for i := range t.Snapshots {
			r.snapshot(&t, &t.Snapshots[i])
		}
	}
	return t, errors.Join(r.errs...)
}

// Files lists every file the table's metadata references: the metadata
// file and those of its metadata log, each snapshot's manifest list, its
// manifests, and the live data files of every snapshot; each once, in that
// order of first mention.
func (t Table) Files() []string {
	var out []string
	seen := map[string]bool{}
	add := func(loc string) {
		if loc != "" && !seen[loc] {
			seen[loc] = true
			out = append(out, loc)
		}
	}
	add(t.MetadataLocation)
	for _, m := range t.MetadataLog {
		add(m)
	}
	for _, s := range t.Snapshots {
		add(s.ManifestList)
		for _, m := range s.Manifests {
			add(m)
		}
		for _, f := range s.DataFiles {
			add(f.Path)
		}
	}
	return out
}

// reader reads the files of one table, collecting the problems it finds.
type reader struct {
	ctx   context.Context
	open  Open
	specs []int // the IDs of the table's partition specs
	errs  []error
}

// problem records what is wrong with the file at loc.
func (r *reader) problem(loc, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s: %s", loc, fmt.Sprintf(format, args...)))
}

// readAll is the content of the file at loc.
func (r *reader) readAll(loc string) ([]byte, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	rc, err := r.open(r.ctx, loc)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
