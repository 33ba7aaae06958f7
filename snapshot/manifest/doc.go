// Package manifest holds what a snapshot records of itself, for readers
// that never open a store: each table's figures (TableStats: walks,
// pages, records received, distinct IDs, the rows in Parquet and DuckDB,
// the digest of the IDs) and the notes people should see of its fields
// (FieldNotes, Notes). Data and pure functions, no SQL: snapshot fills
// them at publish, snapshot/readmodel reads them back, and reports,
// evidence, the workspace and the commands show them without linking
// the engine.
package manifest
