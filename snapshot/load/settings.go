package load

import (
	"errors"
	"fmt"
	"strconv"

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
// uncompressed when it loads under set (catalog.Table.CreateSQL): id,
// each row's own, which DuckDB's dictionary does not compress and
// would otherwise analyse in every row group it writes. None when
// duckdb.fsst is on, whose FSST compresses them.
func Uncompressed(set Settings) []string {
	if set.FSST {
		return nil
	}
	return []string{"id"}
}

// setting sets DuckDB's setting name (memory_limit, threads) of the run's
// DuckDB file's whole instance to value, the value of config key key.
func (l *Loader) setting(name, key, value string) error {
	if _, err := l.ids.db.ExecContext(l.ids.ctx, "SET "+name+" = "+state.SQLString(value)); err != nil {
		return fmt.Errorf("config key %s: DuckDB cannot use %q: %w", key, value, err)
	}
	return nil
}
