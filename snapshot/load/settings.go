package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// limiter runs the statements of one DuckDB instance under the memory
// limits of loading: duckdb.load_memory_limit, raised for a table whose
// work ran out of memory. The loads and history's steps each have one,
// in instances of their own, so that neither changes the other's limit.
// A limiter is used by one goroutine.
type limiter struct {
	ctx     context.Context
	db      *sql.DB
	set     Settings
	log     *slog.Logger
	base    int64            // duckdb.load_memory_limit in bytes
	ceil    int64            // duckdb.memory_limit in bytes: a limit's highest
	current int64            // DuckDB's memory_limit now, in bytes
	limits  map[string]int64 // the limit a table's work needed, when above base
}

func newLimiter(ctx context.Context, db *sql.DB, set Settings, log *slog.Logger) limiter {
	lim := limiter{ctx: ctx, db: db, set: set, log: log, limits: map[string]int64{}}
	lim.base, _ = storeconfig.MemoryBytes(set.LoadMemoryLimit)
	lim.ceil, _ = storeconfig.MemoryBytes(set.MemoryLimit)
	lim.current = lim.base
	return lim
}

// settings puts the instance in DuckDB's settings for loading a snapshot
// (duckdb.load_memory_limit, duckdb.load_threads, and, when noFSST is
// set, duckdb.fsst off).
func (lim *limiter) settings(noFSST bool) error {
	err := errors.Join(lim.setting("memory_limit", "duckdb.load_memory_limit", lim.set.LoadMemoryLimit),
		lim.setting("threads", "duckdb.load_threads", strconv.Itoa(lim.set.LoadThreads)))
	if noFSST {
		err = errors.Join(err, lim.setting("disabled_compression_methods", "duckdb.fsst", "fsst"))
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

// setting sets DuckDB's setting name (memory_limit, threads) of the
// whole instance to value, the value of config key key.
func (lim *limiter) setting(name, key, value string) error {
	if _, err := lim.db.ExecContext(lim.ctx, "SET "+name+" = "+state.SQLString(value)); err != nil {
		return fmt.Errorf("config key %s: DuckDB cannot use %q: %w", key, value, err)
	}
	return nil
}

// underLimit runs do for table, which changes nothing when it fails,
// under the limit the table's work needs: duckdb.load_memory_limit, or
// what its work needed before. When DuckDB runs out of memory, the
// table's limit is doubled, up to duckdb.memory_limit, and do is run
// again; the other tables keep theirs, so that one table of wide rows
// does not raise what every load may hold. what names what do loads or
// counts, for the log.
func (lim *limiter) underLimit(table, what string, do func() error) error {
	limit := max(lim.base, lim.limits[table])
	for {
		if err := lim.setLimit(limit); err != nil {
			return err
		}
		err := do()
		if !state.OutOfMemory(err) {
			return err
		}
		if limit >= lim.ceil {
			return fmt.Errorf("%w (memory limit %s; raise config key duckdb.memory_limit, or lower duckdb.load_threads)", err, lim.set.MemoryLimit)
		}
		limit = min(2*limit, lim.ceil)
		lim.limits[table] = limit
		lim.log.Warn("DuckDB ran out of memory loading the snapshot; loading again with a higher memory limit",
			"loading", what, "memory_limit", megabytes(limit), "load_memory_limit", lim.set.LoadMemoryLimit)
	}
}

// setLimit sets DuckDB's memory_limit to limit bytes, if it is not.
func (lim *limiter) setLimit(limit int64) error {
	if limit == lim.current {
		return nil
	}
	if err := lim.setting("memory_limit", "duckdb.load_memory_limit", megabytes(limit)); err != nil {
		return err
	}
	lim.current = limit
	return nil
}
