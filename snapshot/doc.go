// Package snapshot is the snapshot store (docs/store.md): complete
// snapshots of the tables package catalog lists, as Parquet files
// Hive-partitioned by snapshot_id under a tree readers see, billsnap's own
// state in a DuckDB file only it opens, and the read model readers open, a
// DuckDB file replaced whole at each publish. Options are the store's part
// of the configuration.
//
// Publishing is all or nothing. Rows are written to Parquet files in
// DIR/.staging/<id>/ while the service is walked (package ingest) and loaded into the
// export's own DuckDB file as each walk ends; Publish checks that
// TotalCount, distinct IDs received, Parquet rows and DuckDB rows agree
// and records the manifest — the point of no return — and only then links
// the Parquet into the tree, marks the snapshot complete and makes its
// DuckDB file the read model. A run stopped before the manifest leaves the
// previous complete snapshot where readers look; one stopped after it is
// finished by the next Open. A snapshot whose walk stayed inconsistent is
// kept for inspection as incomplete (not in the latest_ tables) and gets
// no Parquet in the tree.
//
// The store's parts are packages of their own, below it: state (the
// state's sections, each a value with its hooks, the DuckDB engine, the
// locks and file utilities), tree (the trees of generations readers see
// through a link, and their partition key), runrec (the run records, what
// a reconciliation stages, and the records readers see, built a
// generation a publish), readmodel (the read model, which model a state
// asks for and its showing, its views and its queries, a snapshot's
// manifest and fields among them) and migrate (the state's schema, and
// the adoption of an earlier billsnap's store, handed the store's publish
// steps) and load (a run's staged Parquet loaded into its DuckDB file
// while walks go on, and the digest of each table's ids). This package is the snapshot being taken, and the facade its
// callers use: Open, a Section of the state handed to Update and Change,
// a Reading and Keep, OpenRead.
package snapshot
