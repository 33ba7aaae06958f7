// Package ingest is the walk's side of a snapshot: what each walk of the
// service hands over becomes rows of the catalogue's tables, written as
// Parquet part files while the walk goes on. A record's fields are typed
// as their columns say: a contract field of another type stops the walk,
// an assumed one is coerced when nothing is lost and otherwise left NULL
// (the record's _raw keeps it), and every value is counted (the
// manifest.FieldStats that Staging.Fields returns). Walk walks the
// collections concurrently into a Target; Staging is the target's files,
// which it hands to the store through Hooks as they are finished. The
// package knows nothing of DuckDB or of the store's state.
package ingest
