package snapshot

import (
	"github.com/billsnap/billsnap/ingest"
	"github.com/billsnap/billsnap/snapshot/load"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// ingestSettings are what the walk's Parquet writers take of p.
func ingestSettings(p storeconfig.Parquet) ingest.Settings {
	return ingest.Settings{Compression: p.Compression, PageSize: int64(p.PageSize), RowGroupSize: int64(p.RowGroupSize),
		Writers: p.Writers, RowsPerFile: p.RowsPerFile}
}

// stateSettings are what the state's engine and the files it attaches take
// of d.
func stateSettings(d storeconfig.DuckDB) state.Settings {
	return state.Settings{Threads: d.Threads, MemoryLimit: d.MemoryLimit, RowGroupSize: d.RowGroupSize}
}

// loadSettings is what a run's loader takes of d.
func loadSettings(d storeconfig.DuckDB) load.Settings {
	return load.Settings{LoadMemoryLimit: d.LoadMemoryLimit, MemoryLimit: d.MemoryLimit, LoadThreads: d.LoadThreads, FSST: d.FSST}
}
