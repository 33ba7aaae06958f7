package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/xitongsys/parquet-go-source/local"
	"github.com/xitongsys/parquet-go/parquet"
	"github.com/xitongsys/parquet-go/source"
	"github.com/xitongsys/parquet-go/writer"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/crashpoint"
)

var codecs = map[string]parquet.CompressionCodec{"snappy": parquet.CompressionCodec_SNAPPY, "zstd": parquet.CompressionCodec_ZSTD,
	"gzip": parquet.CompressionCodec_GZIP, "none": parquet.CompressionCodec_UNCOMPRESSED}

// partWriter writes one table's rows to part-NNNNN.parquet files in a
// directory, rolling to a new file every RowsPerFile rows. Each file it
// finishes while rows still come is handed to filled (the loader loads it
// into DuckDB while the walk goes on); the last one is left to the caller.
type partWriter struct {
	table  catalog.Table
	dir    string
	cfg    Settings
	filled func(path string)    // a file finished before the last
	drop   func(files []string) // files a reset discards

	file   source.ParquetFile
	w      *writer.CSVWriter
	files  []string
	seq    int // files opened in this run: names are never reused
	inFile int
	rows   int64

	// What release has let go of: pages per column of the row group
	// being filled, and the row groups written when it did.
	released  map[string]int
	rowGroups int

	// nulls counts the nil values per column since the last row group
	// closed, and counted the row groups whose null counts are set.
	nulls   []int64
	counted int
}

func newPartWriter(t catalog.Table, dir string, cfg Settings) *partWriter {
	return &partWriter{table: t, dir: dir, cfg: cfg, filled: func(string) {}, drop: func([]string) {}}
}

// reset discards every file written and starts again. The files go to
// drop, which removes them (and their rows, if some were loaded): they may
// still be waiting to be loaded.
func (p *partWriter) reset() error {
	p.abort()
	if len(p.files) > 0 {
		p.drop(p.files)
	}
	p.files, p.rows, p.inFile = nil, 0, 0
	return os.MkdirAll(p.dir, 0o755)
}

// write appends one row.
func (p *partWriter) write(row []any) error {
	if p.w == nil || p.inFile >= p.cfg.RowsPerFile {
		if err := p.next(); err != nil {
			return err
		}
	}
	for i, v := range row {
		if v == nil {
			p.nulls[i]++
		}
	}
	if err := p.w.Write(row); err != nil {
		return fmt.Errorf("parquet %s: %w", p.table.Name, err)
	}
	p.countNulls()
	p.inFile++
	p.rows++
	if p.inFile%flushRows == 0 {
		// parquet-go buffers rows until its own estimate of their size
		// reaches page size × writers × columns; that estimate is far
		// below what the rows take, so it would hold hundreds of
		// thousands of them. Encoding every flushRows keeps memory flat.
		if err := p.w.Flush(false); err != nil {
			return fmt.Errorf("parquet %s: %w", p.table.Name, err)
		}
		p.countNulls()
		p.release()
		crashpoint.Hit("parquet.flush")
	}
	return nil
}

// release lets go of what parquet-go keeps of rows it has encoded into
// the row group being filled: the slots of its row buffer, which hold the
// rows of the last flush until new rows overwrite them, and each new
// page's min and max, which are views into the response body their row
// came from. Without it, a table's row group kept alive the bodies of
// most of its rows.
func (p *partWriter) release() {
	pw := &p.w.ParquetWriter
	clear(pw.Objs[:cap(pw.Objs)])
	if n := len(pw.Footer.RowGroups); n != p.rowGroups || p.released == nil {
		p.released, p.rowGroups = map[string]int{}, n
	}
	for name, pages := range pw.PagesMapBuf {
		for _, pg := range pages[p.released[name]:] {
			pg.MinVal, pg.MaxVal = cloneString(pg.MinVal), cloneString(pg.MaxVal)
		}
		p.released[name] = len(pages)
	}
}

// countNulls sets the null count of each column of a row group that
// closed since the last call (a Write or Flush closes at most one) to the
// nil values written since the row group before. parquet-go leaves the
// first value of each page out of its count, so a page that starts with a
// null makes the row group's null_count too low, and a reader that trusts
// it (DuckDB) returns nothing for "IS NULL" where nulls are.
func (p *partWriter) countNulls() {
	groups := p.w.Footer.RowGroups
	if len(groups) == p.counted {
		return
	}
	for k, c := range groups[len(groups)-1].Columns {
		if st := c.MetaData.Statistics; st != nil {
			n := p.nulls[k]
			st.NullCount = &n
		}
	}
	clear(p.nulls)
	p.counted = len(groups)
}

// cloneString is v, with a string copied out of whatever it views.
func cloneString(v any) any {
	if s, ok := v.(string); ok {
		return strings.Clone(s)
	}
	return v
}

// flushRows is how many rows a table buffers before they are encoded.
const flushRows = 5000

// next closes the current file, hands it to filled, and opens the next
// part.
func (p *partWriter) next() error {
	if p.w != nil {
		if err := p.closeFile(); err != nil {
			return err
		}
		p.filled(p.files[len(p.files)-1])
	}
	path := filepath.Join(p.dir, fmt.Sprintf("part-%05d.parquet", p.seq))
	p.seq++
	lf, err := local.NewLocalFileWriter(path)
	if err != nil {
		return fmt.Errorf("parquet %s: %w", p.table.Name, err)
	}
	f := diskFile{lf.(*local.LocalFile)}
	w, err := writer.NewCSVWriter(p.table.ParquetSchema(), f, int64(p.cfg.Writers))
	if err != nil {
		f.Close()
		return fmt.Errorf("parquet %s: %w", p.table.Name, err)
	}
	w.CompressionType = codecs[p.cfg.Compression]
	w.PageSize = p.cfg.PageSize
	w.RowGroupSize = p.cfg.RowGroupSize
	p.file, p.w, p.inFile, p.released = f, w, 0, nil
	p.nulls, p.counted = make([]int64, len(p.table.ColumnNames())), 0
	p.files = append(p.files, path)
	return nil
}

func (p *partWriter) closeFile() error {
	if p.w == nil {
		return nil
	}
	err := p.w.Flush(true)
	p.countNulls()
	if err == nil {
		err = p.w.WriteStop()
	}
	if df, ok := p.file.(diskFile); ok && err == nil {
		err = df.File.Sync()
	}
	if cerr := p.file.Close(); err == nil {
		err = cerr
	}
	p.w, p.file = nil, nil
	if err != nil {
		return fmt.Errorf("parquet %s: %w", p.table.Name, err)
	}
	crashpoint.Hit("parquet.file")
	return nil
}

// close finishes the last file; a table without rows still gets one file,
// so that its schema is there for readers.
func (p *partWriter) close() error {
	if len(p.files) == 0 {
		if err := p.next(); err != nil {
			return err
		}
	}
	return p.closeFile()
}

// abort drops the open file without finishing it.
func (p *partWriter) abort() {
	if p.file != nil {
		p.file.Close()
	}
	p.w, p.file = nil, nil
}

// diskFile is a staged Parquet file; crash tests make its writes fail as
// on a full disk (crashpoint "parquet.write").
type diskFile struct{ *local.LocalFile }

func (f diskFile) Write(b []byte) (int, error) {
	if err := crashpoint.Err("parquet.write"); err != nil {
		return 0, err
	}
	return f.LocalFile.Write(b)
}
