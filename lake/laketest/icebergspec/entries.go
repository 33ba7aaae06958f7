//go:build lake

package icebergspec

import (
	"fmt"
	"slices"
	"strings"
)

// entry is a manifest entry.
type entry struct {
	status, content int64
	file            DataFile
}

// manifest reads and checks the manifest m of s, and returns its live data
// files when it is a data manifest.
func (r *reader) manifest(t *Table, s *Snapshot, m manifestFile) []DataFile {
	a, err := r.readAvro(m.path)
	if err != nil {
		r.problem(m.path, "manifest of snapshot %d: %v", s.ID, err)
	}
	if a == nil {
		return nil
	}
	if m.length >= 0 && a.size != m.length {
		r.problem(m.path, "%d bytes, but manifest_length in %s says %d", a.size, s.ManifestList, m.length)
	}
	version := a.version(t.FormatVersion)
	r.checkManifestMeta(a, version, m)
	var live []DataFile
	var files, rows [3]int64
	for i, rec := range a.recs {
		e, ok := r.entry(a, version, fmt.Sprintf("entry %d", i), rec, m)
		if !ok {
			continue
		}
		files[e.status]++
		rows[e.status] += e.file.RecordCount
		if e.status != 2 && m.content == 0 {
			live = append(live, e.file)
		}
	}
	if err == nil {
		r.checkCounts(s.ManifestList, m, files, rows)
	}
	return live
}

// checkManifestMeta checks the Avro metadata of the manifest a: the keys
// its version requires, and its content as listed.
func (r *reader) checkManifestMeta(a *avroFile, version int, m manifestFile) {
	for _, key := range requiredManifestMeta[version] {
		if _, ok := a.meta[key]; !ok {
			r.problem(a.loc, "no %s in the Avro metadata", key)
		}
	}
	if c, ok := a.meta["content"]; ok && int(m.content) < len(contentNames) && string(c) != contentNames[m.content] {
		r.problem(a.loc, "content %q in the Avro metadata, but listed with content %d", c, m.content)
	}
}

// entry reads and checks the manifest entry rec of the manifest a (m).
func (r *reader) entry(a *avroFile, version int, where string, rec map[string]any, m manifestFile) (entry, bool) {
	missing := a.missing(rec, requiredEntry[version]...)
	df, hasFile := a.record(rec, entryDataFile)
	if hasFile {
		missing = append(missing, a.missing(df, requiredDataFile[version]...)...)
	}
	if len(missing) > 0 {
		r.problem(a.loc, "%s: no %s", where, strings.Join(missing, ", "))
	}
	status, ok := a.long(rec, entryStatus)
	if ok && (status < 0 || status > 2) {
		r.problem(a.loc, "%s: status %d not 0, 1 or 2", where, status)
	}
	if !ok || !hasFile || status < 0 || status > 2 {
		return entry{}, false
	}
	e := entry{status: status, file: a.dataFile(df)}
	e.content, _ = a.long(df, fileContent)
	where += " (" + e.file.Path + ")"
	r.checkEntry(a.loc, where, e, m)
	if version >= 2 {
		r.checkSequence(a, where, rec, status, m)
	}
	return e, true
}

// dataFile is the data_file record df.
func (a *avroFile) dataFile(df map[string]any) DataFile {
	f := DataFile{ColumnSizes: a.counts(df, columnSizes), ValueCounts: a.counts(df, valueCounts), NullCounts: a.counts(df, nullCounts)}
	f.Path, _ = a.str(df, filePath)
	f.Format, _ = a.str(df, fileFormat)
	f.RecordCount, _ = a.long(df, recordCount)
	f.FileSize, _ = a.long(df, fileSize)
	return f
}

// checkEntry checks the data file of e, and its content against the
// manifest's.
func (r *reader) checkEntry(loc, where string, e entry, m manifestFile) {
	if !slices.Contains(fileFormats, strings.ToLower(e.file.Format)) {
		r.problem(loc, "%s: file_format %q not one of %v", where, e.file.Format, fileFormats)
	}
	if e.file.RecordCount < 0 || e.file.FileSize < 0 {
		r.problem(loc, "%s: record_count %d or file_size_in_bytes %d negative", where, e.file.RecordCount, e.file.FileSize)
	}
	dataFile := e.content == 0
	if dataFile != (m.content == 0) || e.content < 0 || e.content > 2 {
		r.problem(loc, "%s: content %d in a manifest of content %d", where, e.content, m.content)
	}
}

// checkSequence checks the sequence numbers of the v2 entry rec: only an
// ADDED entry inherits them (when null); none is above the manifest's, and
// a live file's data sequence number is not below min_sequence_number.
func (r *reader) checkSequence(a *avroFile, where string, rec map[string]any, status int64, m manifestFile) {
	for _, f := range []field{entrySequenceNumber, entryFileSequenceNumber} {
		n, ok := a.long(rec, f)
		switch {
		case !ok && status != 1:
			r.problem(a.loc, "%s: status %s but no %s (only ADDED entries inherit it)", where, statusNames[status], f.name)
		case ok && n > m.seq:
			r.problem(a.loc, "%s: %s %d above the manifest's sequence_number %d", where, f.name, n, m.seq)
		}
	}
	seq, ok := a.long(rec, entrySequenceNumber)
	if !ok {
		seq = m.seq
	}
	if status != 2 && seq < m.minSeq {
		r.problem(a.loc, "%s: data sequence number %d below the manifest's min_sequence_number %d", where, seq, m.minSeq)
	}
}

// checkCounts checks the file and row counts the manifest list (at loc)
// states for m against its entries, by status.
func (r *reader) checkCounts(loc string, m manifestFile, files, rows [3]int64) {
	for st := range 3 {
		if n := m.files[st]; n != nil && *n != files[st] {
			r.problem(loc, "manifest %s: %s %d, but it has %d %s entries", m.path, fileCounts[st].name, *n, files[st], statusNames[st])
		}
		if n := m.rows[st]; n != nil && *n != rows[st] {
			r.problem(loc, "manifest %s: %s %d, but its %s entries have %d rows", m.path, rowCounts[st].name, *n, statusNames[st], rows[st])
		}
	}
}
