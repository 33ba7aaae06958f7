//go:build lake

package icebergspec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The fields of a manifest list's manifest_file (spec, Manifest Lists).
var (
	manifestPath       = field{500, "manifest_path"}
	manifestLength     = field{501, "manifest_length"}
	partitionSpecID    = field{502, "partition_spec_id"}
	addedSnapshotID    = field{503, "added_snapshot_id"}
	listSequenceNumber = field{515, "sequence_number"}
	minSequenceNumber  = field{516, "min_sequence_number"}
	manifestContent    = field{517, "content"}
	// fileCounts and rowCounts are by entry status.
	fileCounts = [3]field{{505, "existing_files_count"}, {504, "added_files_count"}, {506, "deleted_files_count"}}
	rowCounts  = [3]field{{513, "existing_rows_count"}, {512, "added_rows_count"}, {514, "deleted_rows_count"}}
)

// The fields of a manifest's manifest_entry and its data_file (spec,
// Manifests).
var (
	entryStatus             = field{0, "status"}
	entrySnapshotID         = field{1, "snapshot_id"}
	entryDataFile           = field{2, "data_file"}
	entrySequenceNumber     = field{3, "sequence_number"}
	entryFileSequenceNumber = field{4, "file_sequence_number"}
	fileContent             = field{134, "content"}
	filePath                = field{100, "file_path"}
	fileFormat              = field{101, "file_format"}
	filePartition           = field{102, "partition"}
	recordCount             = field{103, "record_count"}
	fileSize                = field{104, "file_size_in_bytes"}
	columnSizes             = field{108, "column_sizes"}
	valueCounts             = field{109, "value_counts"}
	nullCounts              = field{110, "null_value_counts"}
)

// The fields each format version requires.
var (
	requiredList = map[int][]field{
		1: {manifestPath, manifestLength, partitionSpecID, addedSnapshotID},
		2: append([]field{manifestPath, manifestLength, partitionSpecID, manifestContent,
			listSequenceNumber, minSequenceNumber, addedSnapshotID}, append(fileCounts[:], rowCounts[:]...)...),
	}
	requiredEntry    = map[int][]field{1: {entryStatus, entrySnapshotID, entryDataFile}, 2: {entryStatus, entryDataFile}}
	requiredDataFile = map[int][]field{
		1: {filePath, fileFormat, filePartition, recordCount, fileSize},
		2: {fileContent, filePath, fileFormat, filePartition, recordCount, fileSize},
	}
	// requiredManifestMeta are the keys of a manifest's Avro metadata.
	requiredManifestMeta = map[int][]string{
		1: {"schema", "partition-spec"},
		2: {"schema", "schema-id", "partition-spec", "partition-spec-id", "format-version", "content"},
	}
)

var (
	statusNames  = [3]string{"EXISTING", "ADDED", "DELETED"}
	contentNames = []string{"data", "deletes"}
	fileFormats  = []string{"avro", "orc", "parquet", "puffin"}
)

// manifestFile is a manifest as its manifest list lists it.
type manifestFile struct {
	path                       string
	length                     int64 // -1 when unknown
	content                    int64
	seq, minSeq, addedSnapshot int64
	files, rows                [3]*int64 // by entry status; nil when unknown
}

// snapshot reads and checks the manifest list and manifests of s.
func (r *reader) snapshot(t *Table, s *Snapshot) {
	before := len(r.errs)
	live := map[string]bool{}
	for _, m := range r.manifestList(t, s) {
		for _, f := range r.manifest(t, s, m) {
			if live[f.Path] {
				r.problem(m.path, "data file %s is live twice in snapshot %d", f.Path, s.ID)
			}
			live[f.Path] = true
			s.DataFiles = append(s.DataFiles, f)
		}
	}
	if len(r.errs) == before {
		r.checkTotals(t.MetadataLocation, s)
	}
}

// manifestList reads and checks the manifest list of s, or for a v1
// snapshot without one, the manifests the metadata lists.
func (r *reader) manifestList(t *Table, s *Snapshot) []manifestFile {
	var out []manifestFile
	if s.ManifestList == "" {
		for _, path := range s.Manifests {
			out = append(out, manifestFile{path: path, length: -1, addedSnapshot: s.ID})
		}
		return out
	}
	a, err := r.readAvro(s.ManifestList)
	if err != nil {
		r.problem(s.ManifestList, "manifest list of snapshot %d: %v", s.ID, err)
	}
	if a == nil {
		return nil
	}
	version := a.version(t.FormatVersion)
	for i, rec := range a.recs {
		if m, ok := r.listed(a, version, i, rec, s); ok {
			s.Manifests = append(s.Manifests, m.path)
			out = append(out, m)
		}
	}
	return out
}

// listed reads and checks the i-th manifest of the manifest list a of s.
func (r *reader) listed(a *avroFile, version, i int, rec map[string]any, s *Snapshot) (manifestFile, bool) {
	where := fmt.Sprintf("manifest %d", i)
	if missing := a.missing(rec, requiredList[version]...); len(missing) > 0 {
		r.problem(a.loc, "%s: no %s", where, strings.Join(missing, ", "))
	}
	m := manifestFile{length: -1}
	path, ok := a.str(rec, manifestPath)
	if !ok {
		return m, false
	}
	m.path = path
	if n, ok := a.long(rec, manifestLength); ok {
		m.length = n
	}
	m.content, _ = a.long(rec, manifestContent)
	m.seq, _ = a.long(rec, listSequenceNumber)
	m.minSeq, _ = a.long(rec, minSequenceNumber)
	m.addedSnapshot, _ = a.long(rec, addedSnapshotID)
	for st := range 3 {
		m.files[st], m.rows[st] = a.optLong(rec, fileCounts[st]), a.optLong(rec, rowCounts[st])
	}
	if id, ok := a.long(rec, partitionSpecID); ok && !slices.Contains(r.specs, int(id)) {
		r.problem(a.loc, "%s: partition_spec_id %d names no partition spec of the table", where, id)
	}
	r.checkListed(a.loc, where+" ("+path+")", m, s)
	return m, true
}

// checkListed checks the content and sequence numbers of m, listed by s.
func (r *reader) checkListed(loc, where string, m manifestFile, s *Snapshot) {
	if m.content != 0 && m.content != 1 {
		r.problem(loc, "%s: content %d not 0 (data) or 1 (deletes)", where, m.content)
	}
	if m.seq > s.SequenceNumber {
		r.problem(loc, "%s: sequence_number %d above the snapshot's %d", where, m.seq, s.SequenceNumber)
	}
	if m.addedSnapshot == s.ID && m.seq != s.SequenceNumber {
		r.problem(loc, "%s: added by snapshot %d, but its sequence_number %d is not the snapshot's %d", where, s.ID, m.seq, s.SequenceNumber)
	}
	if m.minSeq > m.seq {
		r.problem(loc, "%s: min_sequence_number %d above its sequence_number %d", where, m.minSeq, m.seq)
	}
}

// checkTotals checks the summary totals of s (optional fields, spec
// Appendix F) against its live data files.
func (r *reader) checkTotals(loc string, s *Snapshot) {
	var records int64
	for _, f := range s.DataFiles {
		records += f.RecordCount
	}
	for key, have := range map[string]int64{"total-data-files": int64(len(s.DataFiles)), "total-records": records} {
		if v, ok := s.Summary[key]; ok && v != strconv.FormatInt(have, 10) {
			r.problem(loc, "snapshot %d: summary %s is %s, its manifests say %d", s.ID, key, v, have)
		}
	}
}
