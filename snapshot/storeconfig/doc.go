// Package storeconfig holds the store's options as the configuration file
// gives them (its top-level keys out, collections, fields, parquet, duckdb
// and lock_wait): [Options], their defaults ([DefaultOptions]) and their
// validation ([Options.Validate]), sizes ([Size], [MemoryBytes]) and the
// names a file may take inside the output directory ([NameInside]).
//
// It is data, with nothing of the engine: it links no DuckDB, so package
// config can stand on it. Package snapshot opens a store with it.
package storeconfig
