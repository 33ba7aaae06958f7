package storeconfig

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/lake"
)

// Options are the store's: where it is, which lists its snapshots are
// taken from, the field mapping, and how Parquet and DuckDB are written.
// The configuration file holds them at its top level.
type Options struct {
	Out         string            `yaml:"out"`         // the store's directory
	Collections map[string]string `yaml:"collections"` // table name -> list path, overriding the catalogue's
	Fields      catalog.Mapping   `yaml:"fields"`      // typed columns mapped or added (docs/fields.md)
	Parquet     Parquet           `yaml:"parquet"`
	DuckDB      DuckDB            `yaml:"duckdb"`
	LockWait    time.Duration     `yaml:"lock_wait"` // how long an export waits for another to leave the store
}

// DefaultOptions are the store's options before the configuration.
func DefaultOptions() Options {
	return Options{
		Out:         "billsnap-data",
		Collections: map[string]string{},
		Parquet:     Parquet{Dir: "parquet", Compression: "snappy", PageSize: 1 << 20, RowGroupSize: 4 << 20, Writers: 2, RowsPerFile: 1_000_000},
		DuckDB:      DuckDB{File: "billsnap.duckdb", MemoryLimit: "256MB", LoadMemoryLimit: "32MB", LoadThreads: 1, Threads: 2, RowGroupSize: 16384},
		LockWait:    30 * time.Second,
	}
}

// Parquet tunes the Parquet writer.
type Parquet struct {
	Dir          string `yaml:"dir"`            // the Parquet tree, relative to Out
	Compression  string `yaml:"compression"`    // snappy, zstd, gzip or none
	PageSize     Size   `yaml:"page_size"`      // bytes per page
	RowGroupSize Size   `yaml:"row_group_size"` // bytes per row group
	Writers      int    `yaml:"writers"`        // encoding goroutines per file
	RowsPerFile  int    `yaml:"rows_per_file"`  // a table's part files roll over at this many rows
	// URL is object storage every complete snapshot is published to as
	// well (package lake), "" for none: file://DIR, s3://BUCKET/PREFIX
	// (?endpoint=…&region=…&use_path_style=true for any S3-compatible
	// store), gs://BUCKET/PREFIX, azblob://CONTAINER/PREFIX.
	URL string `yaml:"url"`
}

// DuckDB tunes the database.
type DuckDB struct {
	File string `yaml:"file"` // database file, relative to Out
	// MemoryLimit is DuckDB's memory_limit for queries (reconcile,
	// reports, query). DuckDB fills its buffer pool up to the limit, so
	// the limit shows up in the peak RSS.
	MemoryLimit string `yaml:"memory_limit"`
	// LoadMemoryLimit is DuckDB's memory_limit while a snapshot is loaded,
	// and LoadThreads its threads. A load that runs out of memory (rows
	// wider than usual) is tried again with the limit doubled, up to
	// MemoryLimit.
	LoadMemoryLimit string `yaml:"load_memory_limit"`
	LoadThreads     int    `yaml:"load_threads"`
	Threads         int    `yaml:"threads"` // DuckDB's threads setting for queries
	// RowGroupSize is the rows per row group of the database file: DuckDB
	// holds a table's unfinished row group in memory while loading it, so
	// its default (122,880) costs hundreds of MB on wide tables.
	RowGroupSize int `yaml:"row_group_size"`
	// FSST compresses the read model's strings with FSST. Off, the
	// snapshot's file is larger (strings are stored plain or by
	// dictionary) and loading it costs far less CPU: DuckDB's FSST
	// analysis of every string column (IDs, the raw JSON) is most of it.
	FSST bool `yaml:"fsst"`
}

// Validate returns every problem of o, each a *configkey.Error naming its
// key. The field mapping is checked by ApplyFields.
func (o Options) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) { errs = append(errs, configkey.Errorf(key, format, args...)) }
	if strings.TrimSpace(o.Out) == "" {
		bad("out", "must name a directory")
	}
	if o.LockWait < 0 {
		bad("lock_wait", "must not be negative")
	}
	checkRange := func(key string, v, lo, hi int) {
		if v < lo || v > hi {
			bad(key, "must be from %d to %d, not %d", lo, hi, v)
		}
	}
	checkRange("parquet.writers", o.Parquet.Writers, 1, 16)
	checkRange("parquet.rows_per_file", o.Parquet.RowsPerFile, 1000, 1<<30)
	checkRange("duckdb.threads", o.DuckDB.Threads, 1, 256)
	checkRange("duckdb.load_threads", o.DuckDB.LoadThreads, 1, 256)
	checkRange("duckdb.row_group_size", o.DuckDB.RowGroupSize, 2048, 1<<20)
	if o.DuckDB.RowGroupSize%2048 != 0 {
		bad("duckdb.row_group_size", "must be a multiple of 2048, not %d", o.DuckDB.RowGroupSize)
	}
	for name, path := range o.Collections {
		switch {
		case !lake.SafeIdentifier(name):
			bad("collections", "%q is not a name: %s", name, identifierRule)
		case !strings.HasPrefix(path, "/"):
			bad("collections."+name, "must be a path on front_url starting with /, not %q", path)
		}
	}
	for table, columns := range o.Fields {
		if !lake.SafeIdentifier(table) {
			bad("fields", "%q is not a name: %s", table, identifierRule)
			continue
		}
		for column := range columns {
			if !lake.SafeIdentifier(column) {
				bad("fields."+table, "%q is not a name: %s", column, identifierRule)
			}
		}
	}
	if o.Parquet.URL != "" {
		if err := lake.Check(o.Parquet.URL); err != nil {
			bad("parquet.url", "%v", err)
		}
	}
	if !slices.Contains([]string{"snappy", "zstd", "gzip", "none"}, o.Parquet.Compression) {
		bad("parquet.compression", "must be snappy, zstd, gzip or none, not %q", o.Parquet.Compression)
	}
	if o.Parquet.PageSize < 8<<10 || o.Parquet.RowGroupSize < o.Parquet.PageSize {
		bad("parquet", "page_size must be at least 8KiB and row_group_size at least page_size")
	}
	for key, name := range map[string]string{"duckdb.file": o.DuckDB.File, "parquet.dir": o.Parquet.Dir} {
		if !NameInside(name) {
			bad(key, "must be a name inside out, not %q", name)
		}
	}
	for key, v := range map[string]string{"duckdb.memory_limit": o.DuckDB.MemoryLimit, "duckdb.load_memory_limit": o.DuckDB.LoadMemoryLimit} {
		if _, ok := MemoryBytes(v); !ok {
			bad(key, "must be a size such as 128MB, not %q", v)
		}
	}
	return errors.Join(errs...)
}

// identifierRule is the safe alphabet of identifiers (lake.SafeIdentifier):
// tables and columns the configuration names are printed into statements
// and keys, and an identifier outside it is refused, quoted, before the
// catalogue is asked whether it knows it.
const identifierRule = "letters, digits and underscores, a letter or underscore first, at most 128"

// NameInside tells whether name names a file or directory inside the
// store's directory: relative, not hidden, not climbing out.
func NameInside(name string) bool {
	return name != "" && !filepath.IsAbs(name) && !strings.Contains(name, "..") && !strings.HasPrefix(name, ".")
}
