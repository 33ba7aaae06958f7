//go:build lake

package icebergspec

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/linkedin/goavro/v2"
	_ "modernc.org/sqlite"
)

// openFile opens a file:// location.
func openFile(_ context.Context, loc string) (io.ReadCloser, error) {
	u, err := url.Parse(loc)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "file" {
		return nil, fmt.Errorf("not a file URL: %s", loc)
	}
	return os.Open(u.Path)
}

// writeParquet writes a Parquet file of rows rows (id int64, name string)
// in dir and returns its file:// URL.
func writeParquet(t *testing.T, dir, name string, rows int) string {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("row ", i))
	}
	rec := b.NewRecord()
	defer rec.Release()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(sc, []arrow.Record{rec})
	defer tbl.Release()
	if err := pqarrow.WriteTable(tbl, f, int64(rows), nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// twoCommits creates with iceberg-go a table of format version v with two
// snapshots: the first adds a (3 rows), the second replaces it with b (5
// rows). It returns the metadata location and a and b.
func twoCommits(t *testing.T, v int) (meta, a, b string) {
	t.Helper()
	ctx, dir := context.Background(), t.TempDir()
	a, b = writeParquet(t, dir, "a.parquet", 3), writeParquet(t, dir, "b.parquet", 5)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cat, err := sqlcat.NewCatalog("billsnap", db, sqlcat.SQLite, ice.Properties{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	sc := ice.NewSchema(0,
		ice.NestedField{ID: 1, Name: "id", Type: ice.PrimitiveTypes.Int64, Required: true},
		ice.NestedField{ID: 2, Name: "name", Type: ice.PrimitiveTypes.String})
	mapping, _ := json.Marshal(sc.NameMapping())
	tbl, err := cat.CreateTable(ctx, table.Identifier{"ns", "t"}, sc,
		catalog.WithLocation("file://"+filepath.Join(dir, "t")),
		catalog.WithProperties(ice.Properties{table.DefaultNameMappingKey: string(mapping), "format-version": fmt.Sprint(v)}))
	if err != nil {
		t.Fatal(err)
	}
	tx := tbl.NewTransaction()
	if err := tx.AddFiles(ctx, []string{a}, nil, false); err != nil {
		t.Fatal(err)
	}
	if tbl, err = tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tx = tbl.NewTransaction()
	if err := tx.ReplaceDataFiles(ctx, []string{a}, []string{b}, nil); err != nil {
		t.Fatal(err)
	}
	if tbl, err = tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return tbl.MetadataLocation(), a, b
}

func TestReadsTwoCommits(t *testing.T) {
	for _, v := range []int{1, 2} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) { readsTwoCommits(t, v) })
	}
}

func readsTwoCommits(t *testing.T, v int) {
	meta, a, b := twoCommits(t, v)
	tbl, err := Read(context.Background(), openFile, meta)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.FormatVersion != v || tbl.LastColumnID != 2 || tbl.MetadataLocation != meta {
		t.Errorf("format-version %d, last-column-id %d, metadata %s", tbl.FormatVersion, tbl.LastColumnID, tbl.MetadataLocation)
	}
	want := []Field{{1, "id", "long", true}, {2, "name", "string", false}}
	if got := tbl.Schemas[tbl.CurrentSchemaID].Fields; !slices.Equal(got, want) {
		t.Errorf("current schema's fields %v, want %v", got, want)
	}
	if len(tbl.Snapshots) != 2 {
		t.Fatalf("%d snapshots, want 2", len(tbl.Snapshots))
	}
	first, second := tbl.Snapshots[0], tbl.Snapshots[1]
	if tbl.CurrentSnapshotID != second.ID || second.ParentID == nil || *second.ParentID != first.ID {
		t.Errorf("current snapshot %d, second's parent %v; want %d, %d", tbl.CurrentSnapshotID, second.ParentID, second.ID, first.ID)
	}
	if want := int64(v - 1); first.SequenceNumber != want || second.SequenceNumber != 2*want {
		t.Errorf("sequence numbers %d, %d; want %d, %d (0 in v1)", first.SequenceNumber, second.SequenceNumber, want, 2*want)
	}
	checkFiles(t, first, a, 3)
	checkFiles(t, second, b, 5)
	checkListed(t, tbl, meta, a, b)
}

// checkFiles checks that s's only live data file is path, of rows rows.
func checkFiles(t *testing.T, s Snapshot, path string, rows int64) {
	t.Helper()
	if len(s.DataFiles) != 1 {
		t.Fatalf("snapshot %d: data files %+v, want only %s", s.ID, s.DataFiles, path)
	}
	f := s.DataFiles[0]
	if f.Path != path || f.RecordCount != rows || !strings.EqualFold(f.Format, "parquet") {
		t.Errorf("snapshot %d: data file %s (%s) of %d rows, want %s of %d", s.ID, f.Path, f.Format, f.RecordCount, path, rows)
	}
	if st, err := os.Stat(strings.TrimPrefix(path, "file://")); err != nil || st.Size() != f.FileSize {
		t.Errorf("snapshot %d: file_size_in_bytes %d, the file: %v %v", s.ID, f.FileSize, st, err)
	}
	if f.ValueCounts[1] != rows || f.NullCounts[2] != 0 || f.ColumnSizes[1] == 0 {
		t.Errorf("snapshot %d: value counts %v, null counts %v, column sizes %v", s.ID, f.ValueCounts, f.NullCounts, f.ColumnSizes)
	}
}

// checkListed checks that Files lists the metadata file first, then each
// manifest list, manifest and data file, and that every one exists.
func checkListed(t *testing.T, tbl Table, meta, a, b string) {
	t.Helper()
	files := tbl.Files()
	if len(files) == 0 || files[0] != meta {
		t.Fatalf("Files() = %v, want the metadata file first", files)
	}
	for _, s := range tbl.Snapshots {
		if !slices.Contains(files, s.ManifestList) || len(s.Manifests) == 0 {
			t.Errorf("snapshot %d: Files() %v lacks its manifest list, or it has no manifests (%v)", s.ID, files, s.Manifests)
		}
		for _, m := range s.Manifests {
			if !slices.Contains(files, m) {
				t.Errorf("Files() lacks manifest %s", m)
			}
		}
	}
	if !slices.Contains(files, a) || !slices.Contains(files, b) {
		t.Errorf("Files() %v lacks a data file", files)
	}
	for _, f := range files {
		if _, err := os.Stat(strings.TrimPrefix(f, "file://")); err != nil {
			t.Error(err)
		}
	}
}

func TestReportsBrokenMetadata(t *testing.T) {
	for _, c := range []struct {
		name, want string
		edit       func(m map[string]any)
	}{
		{"current-schema-id", "current-schema-id 7 names no schema", func(m map[string]any) { m["current-schema-id"] = 7 }},
		{"table-uuid", "table metadata: no table-uuid", func(m map[string]any) { delete(m, "table-uuid") }},
		{"last-column-id", `field 1 ("name"): id 2 not in 1..last-column-id (1)`, func(m map[string]any) { m["last-column-id"] = 1 }},
		{"current-snapshot-id", "current-snapshot-id 42 names no snapshot", func(m map[string]any) { m["current-snapshot-id"] = 42 }},
		{"snapshot schema-id", "schema-id 9 names no schema", func(m map[string]any) { snapshots(m)[0]["schema-id"] = 9 }},
		{"format-version", "format-version 3: not 1 or 2", func(m map[string]any) { m["format-version"] = 3 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			meta, _, _ := twoCommits(t, 2)
			broken := editMetadata(t, meta, c.edit)
			_, err := Read(context.Background(), openFile, broken)
			if err == nil || !strings.Contains(err.Error(), broken+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one naming %s and saying %q", err, broken, c.want)
			}
		})
	}
}

// snapshots are the snapshots of the metadata m.
func snapshots(m map[string]any) []map[string]any {
	var out []map[string]any
	for _, s := range m["snapshots"].([]any) {
		out = append(out, s.(map[string]any))
	}
	return out
}

// editMetadata writes beside the metadata file at meta a copy edited by
// edit, and returns its location.
func editMetadata(t *testing.T, meta string, edit func(map[string]any)) string {
	t.Helper()
	path := strings.TrimPrefix(meta, "file://")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(filepath.Dir(path), "broken.metadata.json")
	if err := os.WriteFile(broken, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + broken
}

func TestReportsMissingManifest(t *testing.T) {
	meta, _, _ := twoCommits(t, 2)
	tbl, err := Read(context.Background(), openFile, meta)
	if err != nil {
		t.Fatal(err)
	}
	gone := tbl.Snapshots[1].Manifests[0]
	if err := os.Remove(strings.TrimPrefix(gone, "file://")); err != nil {
		t.Fatal(err)
	}
	_, err = Read(context.Background(), openFile, meta)
	if err == nil || !strings.Contains(err.Error(), gone+": manifest of snapshot") {
		t.Errorf("error %v, want one naming %s", err, gone)
	}
}

// TestReadsV1ManifestsInMetadata reads a v1 table whose snapshots list
// their manifests in the metadata (manifests) instead of a manifest list.
func TestReadsV1ManifestsInMetadata(t *testing.T) {
	meta, a, b := twoCommits(t, 1)
	tbl, err := Read(context.Background(), openFile, meta)
	if err != nil {
		t.Fatal(err)
	}
	v1 := editMetadata(t, meta, func(m map[string]any) {
		for i, s := range snapshots(m) {
			delete(s, "manifest-list")
			s["manifests"] = tbl.Snapshots[i].Manifests
		}
	})
	got, err := Read(context.Background(), openFile, v1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Snapshots) != 2 || got.Snapshots[0].ManifestList != "" {
		t.Fatalf("snapshots %+v, want 2 without manifest list", got.Snapshots)
	}
	checkFiles(t, got.Snapshots[0], a, 3)
	checkFiles(t, got.Snapshots[1], b, 5)
}

// TestReportsBrokenAvro edits the manifest list, or the manifests, of the
// second snapshot, and wants an error naming one of its files that says
// what is wrong.
func TestReportsBrokenAvro(t *testing.T) {
	for _, c := range []struct {
		name, want string
		list       bool // edit the manifest list, not the manifests
		edit       func(recs []map[string]any) []map[string]any
	}{
		{"files count", "added_files_count 7, but it has 1 ADDED entries", true, func(recs []map[string]any) []map[string]any {
			recs[0]["added_files_count"] = int32(7)
			return recs
		}},
		{"list sequence number", "sequence_number 5 above the snapshot's 2", true, func(recs []map[string]any) []map[string]any {
			recs[0]["sequence_number"] = int64(5)
			return recs
		}},
		{"list content", `content "data" in the Avro metadata, but listed with content 1`, true, func(recs []map[string]any) []map[string]any {
			recs[0]["content"] = int32(1)
			return recs
		}},
		{"status", "status 3 not 0, 1 or 2", false, func(recs []map[string]any) []map[string]any {
			recs[0]["status"] = int32(3)
			return recs
		}},
		{"inherited sequence number", "status DELETED but no sequence_number", false, func(recs []map[string]any) []map[string]any {
			for _, r := range recs {
				if r["status"] == int32(2) {
					r["sequence_number"] = nil
				}
			}
			return recs
		}},
		{"live twice", "is live twice in snapshot", false, func(recs []map[string]any) []map[string]any {
			if recs[0]["status"] == int32(1) {
				recs = append(recs, recs[0])
			}
			return recs
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			meta, _, _ := twoCommits(t, 2)
			tbl, err := Read(context.Background(), openFile, meta)
			if err != nil {
				t.Fatal(err)
			}
			s := tbl.Snapshots[1]
			edited := s.Manifests
			if c.list {
				edited = []string{s.ManifestList}
			}
			for _, f := range edited {
				editAvro(t, f, c.edit)
			}
			_, err = Read(context.Background(), openFile, meta)
			files := append([]string{s.ManifestList}, s.Manifests...)
			if err == nil || !strings.Contains(err.Error(), c.want) || !slices.ContainsFunc(files, func(f string) bool {
				return strings.Contains(err.Error(), f+": ")
			}) {
				t.Errorf("error %v, want one naming one of %v and saying %q", err, files, c.want)
			}
		})
	}
}

// editAvro rewrites the Avro file at loc with the records edit returns
// for its records (as goavro decodes them).
func editAvro(t *testing.T, loc string, edit func([]map[string]any) []map[string]any) {
	t.Helper()
	path := strings.TrimPrefix(loc, "file://")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := goavro.NewOCFReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for r.Scan() {
		rec, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec.(map[string]any))
	}
	meta := map[string][]byte{}
	for k, v := range r.MetaData() {
		if !strings.HasPrefix(k, "avro.") {
			meta[k] = v
		}
	}
	var out bytes.Buffer
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &out, Schema: string(r.MetaData()["avro.schema"]),
		CompressionName: r.CompressionName(), MetaData: meta})
	if err != nil {
		t.Fatal(err)
	}
	var items []any
	for _, rec := range edit(recs) {
		items = append(items, rec)
	}
	if err := w.Append(items); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
