// Package modelfile builds and shows the read model, DIR/billsnap.duckdb,
// the DuckDB file readers open (package readmodel reads it). Only package
// snapshot imports it, inside sections of the store's state.
//
// The read model is a DuckDB file built whole and then renamed into place,
// never changed after: a reader that opened it keeps a consistent view of
// its latest_ tables (the old inode), and one that opens the path
// afterwards gets the new one. It holds
//
//	latest_<table>      the latest complete snapshot, native tables, every column but _raw
//	<table>             every complete snapshot: a view over the Parquet tree
//	incomplete_<table>  the incomplete snapshots: a view over their tree
//	snapshots, snapshot_tables, snapshot_fields, reconciliations,
//	reconciliation_totals, field_ids, runs, and the run records
//	findings, unjudged, rechecks
//	                    views over the records (runrec.Records)
//	<table>_history, changes, …
//	                    history's views (package history)
//	columns, codes      the data dictionary (dictionary.go)
//	latest_snapshot     the snapshot its latest_ tables hold, a view
//	billsnap_model      that snapshot's ID, and a digest of the views
//
// The views read through links that a publish switches, so they show
// what was published last when a query runs. A new model is built when
// the latest complete snapshot changes, or when the views it must have
// change (a tree no longer empty, a directory moved: they name absolute
// paths); a reconciliation publishes records only.
//
// A [Model] is the read model of an output directory. The store calls it
// inside a section of its state: [Model.Sync] builds the model the state
// asks for (from the snapshot's DuckDB file or its Parquet, [Model.Of]),
// [Model.ViewsKey] says when the views must be made again, and
// [Model.Show] shows it once the section commits: built at
// DIR/.billsnap/model.next.duckdb, made durable and renamed over
// DIR/billsnap.duckdb, then what it holds written in DIR/.billsnap/model.json
// ([Model.Held]). billsnap never opens the public file with DuckDB (a
// reader may hold it open for writing, and DuckDB's lock then refuses
// every other process; a reader may have changed it): [Model.Bind] makes
// the views reconcile reads over two snapshots from their Parquet.
package modelfile
