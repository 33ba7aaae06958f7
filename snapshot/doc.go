// Package snapshot is the snapshot store: one DuckDB file holding every
// snapshot (a snapshot_id column on every table), a snapshots manifest with
// per-table counts, latest_<table> views over the newest complete snapshot,
// and Parquet files Hive-partitioned by snapshot:
// DIR/parquet/<table>/snapshot_id=<id>/part-NNNNN.parquet.
//
// Publishing is all or nothing. Rows are written to Parquet files in
// DIR/.staging/<id>/ while the service is walked; Publish reads them back,
// loads them into DuckDB in one transaction that also records every count,
// checks that TotalCount, distinct IDs received, Parquet rows and DuckDB
// rows agree, and only then renames the Parquet directories into place and
// marks the snapshot complete. The DuckDB commit is the point of no return:
// a run stopped before it leaves the previous complete snapshot as latest
// and no trace where readers look; a run stopped during the renames is
// rolled forward by the next Open. A snapshot whose walk stayed
// inconsistent is kept in DuckDB as incomplete (not in the latest_ views)
// and gets no Parquet.
package snapshot
