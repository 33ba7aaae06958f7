// Package storeconfig holds the store's options as the configuration file
// gives them (its top-level keys out, collections, fields, parquet, duckdb
// and lock_wait), their defaults and their validation: data, with nothing
// of the engine, so the configuration stands without DuckDB. Package
// snapshot opens a store with them.
package storeconfig
