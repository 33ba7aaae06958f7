// Package manifest holds what a snapshot records of itself, for readers
// that never open a store: each table's figures (TableStats: walks,
// pages, records received, distinct IDs, the rows in Parquet and DuckDB,
// the digest of the IDs), what came of each field (FieldStats: values by
// JSON type, coerced, untyped, repaired, an example, and their text) and
// the notes people should see of its fields (FieldNotes, Notes). Data
// and pure functions, no SQL and no Parquet writer: ingest counts the
// fields as it walks, snapshot fills the rest at publish,
// snapshot/readmodel reads them back, and reports, evidence, the
// workspace and the commands show them without linking the engine.
package manifest
