package load

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/snapshot/state"
)

// settings puts the run's DuckDB file in DuckDB's settings for loading a
// snapshot (duckdb.load_memory_limit, duckdb.load_threads, duckdb.fsst).
func (l *Loader) settings() error {
	err := errors.Join(l.setting("memory_limit", "duckdb.load_memory_limit", l.set.LoadMemoryLimit),
		l.setting("threads", "duckdb.load_threads", strconv.Itoa(l.set.LoadThreads)))
	if !l.set.FSST {
		err = errors.Join(err, l.setting("disabled_compression_methods", "duckdb.fsst", "fsst"))
	}
	return err
}

// Uncompressed are the columns of the latest_ tables a run stores
// uncompressed when it loads under set (catalog.Table.CreateSQL): id and
// _raw, each row's own, which DuckDB's dictionary does not compress and
// would otherwise analyse in every row group it writes. None when
// duckdb.fsst is on, whose FSST compresses them.
func Uncompressed(set Settings) []string {
	if set.FSST {
		return nil
	}
	return []string{"id", "_raw"}
}

// setting sets DuckDB's setting name (memory_limit, threads) of the run's
// DuckDB file's whole instance to value, the value of config key key.
func (l *Loader) setting(name, key, value string) error {
	if _, err := l.ids.db.ExecContext(l.ids.ctx, "SET "+name+" = "+state.SQLString(value)); err != nil {
		return fmt.Errorf("config key %s: DuckDB cannot use %q: %w", key, value, err)
	}
	return nil
}

// memorySize is a size DuckDB's memory_limit takes: 64MB, 1.5GiB.
var memorySize = regexp.MustCompile(`(?i)^([0-9]+(?:\.[0-9]+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$`)

// memoryUnits are the units of memorySize as DuckDB reads them: KB, MB, GB
// and TB are powers of 1000, KiB, MiB, GiB and TiB powers of 1024.
var memoryUnits = map[string]float64{"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}

// MemoryBytes is the number of bytes of a DuckDB memory size such as
// 64MB; ok is false when s is not one.
func MemoryBytes(s string) (n int64, ok bool) {
	m := memorySize.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	return int64(f * memoryUnits[strings.ToLower(m[2])]), true
}
