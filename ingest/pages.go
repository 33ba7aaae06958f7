package ingest

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/golang/snappy"
	"github.com/xitongsys/parquet-go/common"
	"github.com/xitongsys/parquet-go/compress"
	"github.com/xitongsys/parquet-go/encoding"
	"github.com/xitongsys/parquet-go/layout"
	"github.com/xitongsys/parquet-go/parquet"
	"github.com/xitongsys/parquet-go/writer"
)

// pageEncoder turns buffered rows into the data pages of a parquet-go
// writer, as its own flush would (writer.ParquetWriter.flushObjs with
// marshal.MarshalCSV): the rows cut into as many runs as the writer has
// encoding goroutines, each run's columns into pages of PLAIN values with
// RLE definition levels, cut where parquet-go cuts them, with the same
// headers and statistics. The pages go to the writer's buffer of the row
// group being filled, which parquet-go itself writes out (Flush).
//
// What differs is how: the values are encoded from the rows straight
// into a buffer reused from page to page, compressed into another, and
// the page kept is one allocation of its header and compressed bytes;
// parquet-go's flush copied the rows into columns and allocated each
// page's bytes four times. Also, a page's null count includes its first
// value (parquet-go leaves it out; countNulls sets the row groups' counts
// in any case), and the strings of a page's min and max are copies, never
// views of the rows.
type pageEncoder struct {
	cols     []pageColumn
	codec    parquet.CompressionCodec
	pageSize int
	runs     int
	scratch  *sync.Pool // of *pageScratch
}

// pageColumn is what a page of one column carries of the schema.
type pageColumn struct {
	key    string // the column's key in the writer's PagesMapBuf
	path   []string
	schema *parquet.SchemaElement
	info   *common.Tag
	typ    parquet.Type
	maxDef int32 // 1 when OPTIONAL
}

// pageScratch is the room one run's encoding reuses.
type pageScratch struct {
	data, packed []byte
	defs         []int32
	header       *thrift.TSerializer
}

func newPageScratch() any {
	ts := thrift.NewTSerializer()
	ts.Protocol = thrift.NewTCompactProtocolFactoryConf(nil).GetProtocol(ts.Transport)
	return &pageScratch{header: ts}
}

// newPageEncoder is the encoder of w's columns (a flat schema of
// parquet-go's CSV writer).
func newPageEncoder(w *writer.CSVWriter, scratch *sync.Pool) *pageEncoder {
	sh := w.SchemaHandler
	e := &pageEncoder{codec: w.CompressionType, pageSize: int(w.PageSize), runs: int(w.NP), scratch: scratch}
	for i := 1; i < len(sh.Infos); i++ {
		key := sh.GetRootInName() + common.PAR_GO_PATH_DELIMITER + sh.Infos[i].InName
		el := sh.SchemaElements[sh.MapIndex[key]]
		c := pageColumn{key: key, path: common.StrToPath(key), schema: el, info: sh.Infos[i], typ: el.GetType()}
		if el.GetRepetitionType() == parquet.FieldRepetitionType_OPTIONAL {
			c.maxDef = 1
		}
		e.cols = append(e.cols, c)
	}
	return e
}

// encode adds rows to pw's row group being filled, as pages.
func (e *pageEncoder) encode(pw *writer.ParquetWriter, rows [][]any) error {
	n := len(rows)
	if n == 0 {
		return nil
	}
	runs := max(e.runs, 1)
	delta := (n + runs - 1) / runs
	out := make([][][]*layout.Page, runs) // by run, then column
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for r := range runs {
		b, end := min(r*delta, n), min((r+1)*delta, n)
		if b >= end {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[r], errs[r] = e.encodeRun(rows[b:end])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for _, byCol := range out {
		for k, pages := range byCol {
			key := e.cols[k].key
			pw.PagesMapBuf[key] = append(pw.PagesMapBuf[key], pages...)
			for _, pg := range pages {
				pw.Size += int64(len(pg.RawData))
			}
		}
	}
	pw.NumRows += int64(n)
	pw.Footer.NumRows += int64(n)
	return nil
}

// encodeRun encodes each column of rows as pages.
func (e *pageEncoder) encodeRun(rows [][]any) ([][]*layout.Page, error) {
	s := e.scratch.Get().(*pageScratch)
	defer e.scratch.Put(s)
	out := make([][]*layout.Page, len(e.cols))
	for k := range e.cols {
		for i := 0; i < len(rows); {
			j, pg, err := e.page(s, k, rows, i)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", e.cols[k].schema.Name, err)
			}
			out[k] = append(out[k], pg)
			i = j
		}
	}
	return out, nil
}

// page encodes column k of rows from i on into one page; j is where the
// next page starts. As parquet-go does, a page takes values until their
// size, its first value not counted, reaches the page size.
func (e *pageEncoder) page(s *pageScratch, k int, rows [][]any, i int) (j int, pg *layout.Page, err error) {
	c := &e.cols[k]
	var st pageStats
	st.add(rows[i][k])
	size := 0
	for j = i + 1; j < len(rows) && size < e.pageSize; j++ {
		size += st.add(rows[j][k])
	}
	st.min, st.max = cloneString(st.min), cloneString(st.max)
	if err := s.levelsAndValues(c, k, rows[i:j]); err != nil {
		return j, nil, err
	}
	raw, h, err := e.compress(s, c)
	if err != nil {
		return j, nil, err
	}
	pg = layout.NewDataPage()
	pg.PageSize = int32(e.pageSize)
	pg.Schema, pg.Path, pg.Info, pg.CompressType = c.schema, c.path, c.info, e.codec
	pg.MinVal, pg.MaxVal, pg.NullCount = st.min, st.max, &st.nulls
	h.DataPageHeader.NumValues = int32(j - i)
	h.DataPageHeader.Statistics = statistics(c.typ, st)
	hdr, err := s.header.Write(context.Background(), h)
	if err != nil {
		return j, nil, err
	}
	pg.Header = h
	pg.RawData = append(append(make([]byte, 0, len(hdr)+len(raw)), hdr...), raw...)
	return j, pg, nil
}

// levelsAndValues sets s.data to the definition levels and PLAIN values
// of column k of rows, uncompressed.
func (s *pageScratch) levelsAndValues(c *pageColumn, k int, rows [][]any) error {
	s.data = s.data[:0]
	if c.maxDef > 0 {
		s.defs = s.defs[:0]
		for _, row := range rows {
			s.defs = append(s.defs, int32(boolInt(row[k] != nil)))
		}
		s.data = append(s.data, encoding.WriteRLEBitPackedHybridInt32(s.defs, int32(bits.Len32(uint32(c.maxDef))))...)
	}
	start := len(s.data)
	for _, row := range rows {
		if v := row[k]; v != nil {
			var err error
			if s.data, err = appendPlain(s.data, c.typ, v); err != nil {
				return err
			}
		}
	}
	if c.typ == parquet.Type_BOOLEAN {
		s.data = s.data[:start+len(packBools(s.data[start:]))]
	}
	return nil
}

// compress compresses the page's levels and values (s.data); the answer
// is in s (valid until its next use) and the page's header without its
// counts and statistics.
func (e *pageEncoder) compress(s *pageScratch, c *pageColumn) ([]byte, *parquet.PageHeader, error) {
	var raw []byte
	switch e.codec {
	case parquet.CompressionCodec_SNAPPY:
		s.packed = snappy.Encode(s.packed[:cap(s.packed)], s.data)
		raw = s.packed
	case parquet.CompressionCodec_UNCOMPRESSED:
		raw = s.data
	default:
		if raw = compress.Compress(s.data, e.codec); raw == nil {
			return nil, nil, fmt.Errorf("no compressor %s", e.codec)
		}
	}
	h := parquet.NewPageHeader()
	h.Type = parquet.PageType_DATA_PAGE
	h.CompressedPageSize = int32(len(raw))
	h.UncompressedPageSize = int32(len(s.data))
	h.DataPageHeader = parquet.NewDataPageHeader()
	h.DataPageHeader.DefinitionLevelEncoding = parquet.Encoding_RLE
	h.DataPageHeader.RepetitionLevelEncoding = parquet.Encoding_RLE
	h.DataPageHeader.Encoding = c.info.Encoding
	return raw, h, nil
}

// pageStats are a page's min, max and nulls as parquet-go compares them
// (by the physical type: signed integers, strings by bytes).
type pageStats struct {
	min, max any
	nulls    int64
}

// add counts v and returns its size in parquet-go's reckoning.
func (st *pageStats) add(v any) int {
	if v == nil {
		st.nulls++
		return 0
	}
	if st.min == nil || less(v, st.min) {
		st.min = v
	}
	if st.max == nil || less(st.max, v) {
		st.max = v
	}
	switch v := v.(type) {
	case string:
		return len(v)
	case int32:
		return 4
	case bool:
		return 1
	}
	return 8
}

// less orders two values of one column's type.
func less(a, b any) bool {
	switch a := a.(type) {
	case string:
		return a < b.(string)
	case int64:
		return a < b.(int64)
	case int32:
		return a < b.(int32)
	case float64:
		return a < b.(float64)
	case bool:
		return !a && b.(bool)
	}
	return false
}

// statistics is a page header's statistics: min and max PLAIN-encoded
// (a byte array without its length), and the null count.
func statistics(typ parquet.Type, st pageStats) *parquet.Statistics {
	out := parquet.NewStatistics()
	plain := func(v any) []byte {
		b, _ := appendPlain(nil, typ, v)
		if typ == parquet.Type_BOOLEAN {
			b = packBools(b)
		}
		if typ == parquet.Type_BYTE_ARRAY {
			b = b[4:]
		}
		return b
	}
	if st.max != nil {
		out.Max = plain(st.max)
		out.MaxValue = out.Max
	}
	if st.min != nil {
		out.Min = plain(st.min)
		out.MinValue = out.Min
	}
	nulls := st.nulls
	out.NullCount = &nulls
	return out
}

// appendPlain appends v PLAIN-encoded as typ; a boolean is appended as
// one byte, 0 or 1, for packBools.
func appendPlain(b []byte, typ parquet.Type, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		if typ == parquet.Type_BYTE_ARRAY {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(x)))
			return append(b, x...), nil
		}
	case int64:
		if typ == parquet.Type_INT64 {
			return binary.LittleEndian.AppendUint64(b, uint64(x)), nil
		}
	case int32:
		if typ == parquet.Type_INT32 {
			return binary.LittleEndian.AppendUint32(b, uint32(x)), nil
		}
	case float64:
		if typ == parquet.Type_DOUBLE {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(x)), nil
		}
	case bool:
		if typ == parquet.Type_BOOLEAN {
			return append(b, byte(boolInt(x))), nil
		}
	}
	return b, fmt.Errorf("a %T is not a %s", v, typ)
}

// packBools packs booleans, one a byte, into bits (PLAIN), in place.
func packBools(b []byte) []byte {
	n := (len(b) + 7) / 8
	for i := range n {
		var p byte
		for k, v := range b[i*8 : min(i*8+8, len(b))] {
			p |= v << k
		}
		b[i] = p
	}
	return b[:n]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cloneString is v, with a string copied out of whatever it views.
func cloneString(v any) any {
	if s, ok := v.(string); ok {
		return strings.Clone(s)
	}
	return v
}
