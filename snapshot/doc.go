// Package snapshot is the snapshot store (docs/store.md): complete
// snapshots of the tables package catalog lists, as Parquet files
// Hive-partitioned by snapshot_id under a tree readers see, billsnap's own
// state in a DuckDB file only it opens, and the read model readers open, a
// DuckDB file replaced whole at each publish. Options are the store's part
// of the configuration.
//
// # Publishing
//
// Publishing is all or nothing. Rows are written to Parquet files in
// DIR/.staging/<id>/ while the service is walked (package ingest) and
// loaded into the export's own DuckDB file as each walk ends. [Run.Publish]
// checks that TotalCount, the distinct IDs received, the Parquet rows and
// the DuckDB rows agree, and records the manifest: the point of no return.
// Only then does it link the Parquet into the tree, mark the snapshot
// complete and make its DuckDB file the read model. A run stopped before
// the manifest leaves the previous complete snapshot where readers look;
// one stopped after it is finished by the next [Open]. A snapshot whose
// walk stayed inconsistent is kept for inspection as incomplete (not in
// the latest_ tables) and gets no Parquet in the tree.
//
// # Its parts
//
// The store's parts are packages of their own, below it:
//
//   - state: the state's sections, each a value with its hooks, the DuckDB
//     engine, the locks.
//   - tree: the trees of generations readers see through a link, and
//     their partition key.
//   - runrec: the run records, what a reconciliation stages, and the
//     records readers see, built as a new generation at each publish.
//   - readmodel: the read model, which model a state asks for and showing
//     it, its views, and every query of the store.
//   - migrate: the state's schema, and the adoption of an earlier
//     billsnap's store, handed the store's publish steps.
//   - load: a run's staged Parquet loaded into its DuckDB file while walks
//     go on, and the digest of each table's IDs.
//   - history: every record's versions, moved one step per complete
//     snapshot.
//
// This package is the snapshot being taken, and the facade its callers
// use. Each file stands only on those below it:
//
//   - store.go and options.go: the [Store], and the options of package
//     storeconfig as the engine, the loader and the walk take them.
//   - section.go: a [Section] of the state, a value holding its DB, the
//     run records it keeps ([Section.KeepFindings], [Section.KeepRechecks])
//     and what it built.
//   - update.go: [Store.Update] runs a function in a section; [Store.UpdateAndPublish]
//     does the same and then publishes the read model again. Both first
//     bring the state to this billsnap's schema and finish a publish that
//     a crash cut short.
//   - model.go: what a section builds beside the state and shows when it
//     commits, in order: the records' generation, then the read model. The
//     read model's own decisions are readmodel's, the generation's runrec's.
//   - run.go and fieldids.go: a [Run], which starts its loader (package
//     load) and hands the walk its hooks.
//   - publish.go and take.go: the publish: the counts checked, the manifest
//     and the fields written.
//   - finish.go: a snapshot whose manifest is recorded finished, at publish
//     or after a crash, with the rest of recovery.
//   - prune.go: retention across the state, the run records, the trees and
//     the records ([Store.Prune], [Store.PruneHistory]).
//   - reading.go: a read-only [Reading] of the state for reconcile
//     ([Store.Read], [Reading.Bind]), and [Store.Keep], the section that
//     keeps what it staged once it checks the state did not change
//     ([ErrStale] if it did).
//   - open.go: [Open] and [OpenShared], which adopt a directory with no
//     state (migrate.Adopt), and [OpenRead], which opens the read model of
//     a configuration's output directory. [ErrNoStore] and [BusyError] are
//     their errors.
package snapshot
