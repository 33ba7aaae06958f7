package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"sync"

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
	enc    *pageEncoder
	files  []string
	sums   map[string]FileSum // of the files closed, by path
	seq    int                // files opened in this run: names are never reused
	inFile int
	rows   int64

	// pending are the rows not yet encoded; scratch is the room the
	// encoding reuses, shared by the staging's writers.
	pending [][]any
	scratch *sync.Pool

	// nulls counts the nil values per column since the last row group
	// closed, and counted the row groups whose null counts are set.
	nulls   []int64
	counted int
}

func newPartWriter(t catalog.Table, dir string, cfg Settings) *partWriter {
	return &partWriter{table: t, dir: dir, cfg: cfg, scratch: &sync.Pool{New: newPageScratch},
		filled: func(string) {}, drop: func([]string) {}}
}

// reset discards every file written and starts again. The files go to
// drop, which removes them (and their rows, if some were loaded): they may
// still be waiting to be loaded.
func (p *partWriter) reset() error {
	p.abort()
	if len(p.files) > 0 {
		p.drop(p.files)
	}
	p.files, p.sums, p.rows, p.inFile = nil, nil, 0, 0
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
	p.pending = append(p.pending, row)
	p.inFile++
	p.rows++
	if len(p.pending) >= flushRows {
		// Encoding every flushRows keeps memory flat: the rows waiting
		// hold views of the response bodies they came from.
		if err := p.flush(false); err != nil {
			return err
		}
		crashpoint.Hit("parquet.flush")
	}
	return nil
}

// flush encodes the pending rows into pages of the row group being
// filled, and lets parquet-go write the row group out when it is full
// (or when last, the file's last).
func (p *partWriter) flush(last bool) error {
	err := p.enc.encode(&p.w.ParquetWriter, p.pending)
	clear(p.pending)
	p.pending = p.pending[:0]
	if err == nil {
		err = p.w.Flush(last)
	}
	if err != nil {
		return fmt.Errorf("parquet %s: %w", p.table.Name, err)
	}
	p.countNulls()
	return nil
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
	f := &diskFile{LocalFile: lf.(*local.LocalFile), path: path, sum: sha256.New()}
	w, err := writer.NewCSVWriter(p.table.ParquetSchema(), f, int64(p.cfg.Writers))
	if err != nil {
		f.Close()
		return fmt.Errorf("parquet %s: %w", p.table.Name, err)
	}
	w.CompressionType = codecs[p.cfg.Compression]
	w.PageSize = p.cfg.PageSize
	w.RowGroupSize = p.cfg.RowGroupSize
	p.file, p.w, p.enc, p.inFile = f, w, newPageEncoder(w, p.scratch), 0
	p.nulls, p.counted = make([]int64, len(p.table.ColumnNames())), 0
	p.files = append(p.files, path)
	return nil
}

func (p *partWriter) closeFile() error {
	if p.w == nil {
		return nil
	}
	err := p.flush(true)
	if err == nil {
		err = p.w.WriteStop()
	}
	df, isDisk := p.file.(*diskFile)
	if isDisk && err == nil {
		err = df.File.Sync()
	}
	if isDisk && err == nil {
		if p.sums == nil {
			p.sums = map[string]FileSum{}
		}
		p.sums[df.path] = FileSum{Path: df.path, Bytes: df.n, SHA256: hex.EncodeToString(df.sum.Sum(nil))}
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
	clear(p.pending)
	p.w, p.file, p.pending = nil, nil, p.pending[:0]
}

// FileSum is a Parquet file as it was written: its path, size and
// SHA-256 (hex), hashed as its bytes went out, so that the manifest
// records it without reading the file again.
type FileSum struct {
	Path   string
	Bytes  int64
	SHA256 string
}

// diskFile is a staged Parquet file, hashed as it is written (parquet-go
// writes a file front to back, never seeking); crash tests make its
// writes fail as on a full disk (crashpoint "parquet.write").
type diskFile struct {
	*local.LocalFile
	path string
	sum  hash.Hash
	n    int64
}

func (f *diskFile) Write(b []byte) (int, error) {
	if err := crashpoint.Err("parquet.write"); err != nil {
		return 0, err
	}
	n, err := f.LocalFile.Write(b)
	f.sum.Write(b[:n])
	f.n += int64(n)
	return n, err
}
