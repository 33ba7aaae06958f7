// Package migrate brings billsnap's state to this billsnap's schema, and
// gives a store with no state one.
//
// [State] runs the statements of the state's tables and records its
// version ([SchemaVersion]). It runs at the start of every section, and in
// the fixtures of reconcile, fix and job; once a state is current it does
// nothing. [Current] is a reading's check of the same.
// [UpgradeRunRecords] upgrades a state whose run records were tables to
// one file per run.
//
// [Adopt] (adopt.go) adopts a directory whose published database has no
// state: a store of an earlier billsnap, migrated, or a read model whose
// state is gone, giving the state back. It fills the state being made and
// asks the store for its publish steps through a [Publisher], so it
// imports nothing of package snapshot.
//
// oldstore.go reads what an earlier store holds: its state's tables
// ([CopyStateTables]), its runs into the journal ([MoveRuns]), its
// incomplete snapshots' rows as Parquet ([ExportIncomplete]) and its
// latest snapshot into the read model ([CopyLatest]).
// [RenameOldPartitions] renames its partitions to snapshot_id=, at
// adoption and at every recovery.
package migrate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/billsnap/billsnap/snapshot/history"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

const metaSQL = `
-- reconcile's cur and prev, schemas of the state before they were
-- databases in memory: their names would be ambiguous.
DROP SCHEMA IF EXISTS cur CASCADE;
DROP SCHEMA IF EXISTS prev CASCADE;
CREATE TABLE IF NOT EXISTS billsnap_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS snapshots (
  id VARCHAR PRIMARY KEY,
  started TIMESTAMPTZ NOT NULL,
  finished TIMESTAMPTZ,
  status VARCHAR NOT NULL,
  base_url VARCHAR,
  front_url VARCHAR,
  error VARCHAR
);
CREATE TABLE IF NOT EXISTS snapshot_tables (
  snapshot_id VARCHAR NOT NULL,
  table_name VARCHAR NOT NULL,
  collection VARCHAR NOT NULL,
  walks INTEGER,
  pages INTEGER,
  records_received BIGINT,
  distinct_ids BIGINT,
  total_count BIGINT,
  parquet_rows BIGINT,
  duckdb_rows BIGINT,
  ids_sha256 VARCHAR,
  seconds DOUBLE,
  complete BOOLEAN NOT NULL,
  problem VARCHAR
);
CREATE TABLE IF NOT EXISTS snapshot_fields (
  snapshot_id VARCHAR NOT NULL,
  table_name VARCHAR NOT NULL,
  column_name VARCHAR,
  field VARCHAR NOT NULL,
  kind VARCHAR,
  contract BOOLEAN NOT NULL,
  nulls BIGINT NOT NULL,
  strings BIGINT NOT NULL,
  numbers BIGINT NOT NULL,
  booleans BIGINT NOT NULL,
  objects BIGINT NOT NULL,
  arrays BIGINT NOT NULL,
  coerced BIGINT NOT NULL,
  untyped BIGINT NOT NULL,
  example_id VARCHAR,
  repaired BIGINT DEFAULT 0
);
-- repaired: values not valid UTF-8, repaired (manifest.FieldStats); a
-- state written before it gets the column, 0 in its rows.
ALTER TABLE snapshot_fields ADD COLUMN IF NOT EXISTS repaired BIGINT DEFAULT 0;
-- What reconcile writes besides its run records (runrec): one row a
-- reconciliation, so that a snapshot without a finding is in the trend
-- too, and its open findings' totals (by severity and currency: how many,
-- and the amount not waived), which the trend reads.
CREATE TABLE IF NOT EXISTS reconciliations (
  snapshot_id VARCHAR NOT NULL,
  period VARCHAR NOT NULL,
  as_of TIMESTAMPTZ NOT NULL,
  reconciled_at TIMESTAMPTZ NOT NULL,
  findings BIGINT NOT NULL,
  material BOOLEAN NOT NULL
);
CREATE TABLE IF NOT EXISTS reconciliation_totals (
  snapshot_id VARCHAR NOT NULL,
  period VARCHAR NOT NULL,
  severity VARCHAR NOT NULL,
  currency VARCHAR NOT NULL,
  findings BIGINT NOT NULL,
  amount DECIMAL(18,2) NOT NULL
);
CREATE OR REPLACE VIEW latest_snapshot AS
  SELECT * FROM snapshots WHERE status = 'complete' ORDER BY started DESC, id DESC LIMIT 1;
`

// SchemaVersion is stored in billsnap_meta; a database from a newer
// billsnap is refused, and one of an older version that metaSQL brings up
// to this one (upgradable) is marked as this version. Version 5 adds the
// catalogue of field IDs; version 6 keeps findings, unjudged and rechecks
// as run records (runrec) instead of tables; version 7 adds history's
// steps (package history); version 8 the packs that hold their files
// (history_steps.pack), which a billsnap before it would not read.
const SchemaVersion = "8"

var upgradable = []string{"2", "3", "4", "5", "6", "7"}

// StateSQL creates the state's tables.
const StateSQL = metaSQL + FieldIDsSQL + runrec.IndexSQL + ParquetColumnsSQL + SnapshotFilesSQL + SnapshotMacrosSQL + history.StateSQL

// stateDigest names the statements and the version of the state's
// schema; a state of this version that records it (billsnap_meta's
// state_sql) has them already.
var stateDigest = fmt.Sprintf("%x", sha256.Sum256([]byte(SchemaVersion+"\n"+StateSQL)))[:16]

// State creates the tables of billsnap's state in db (a fixture
// database of reconcile's tests, too) and checks their schema version. A
// state that this billsnap migrated before is left as it is.
func State(ctx context.Context, db *sql.DB) error {
	if done, err := Current(ctx, db); err == nil && done {
		return nil
	}
	if err := migrateState(ctx, db); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, "INSERT OR REPLACE INTO billsnap_meta VALUES ('state_sql', ?)", stateDigest)
	return err
}

// Current tells whether q's state is of this billsnap's schema: this
// version, and the statements this billsnap migrates a state with.
func Current(ctx context.Context, q state.Querier) (bool, error) {
	var done bool
	err := q.QueryRowContext(ctx, `SELECT count(*) = 2 FROM billsnap_meta
		WHERE (key = 'state_sql' AND value = ?) OR (key = 'schema_version' AND value = ?)`, stateDigest, SchemaVersion).Scan(&done)
	return done, err
}

func migrateState(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, StateSQL); err != nil {
		return fmt.Errorf("duckdb schema: %w", err)
	}
	var v string
	err := db.QueryRowContext(ctx, "SELECT value FROM billsnap_meta WHERE key = 'schema_version'").Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = db.ExecContext(ctx, "INSERT INTO billsnap_meta VALUES ('schema_version', ?)", SchemaVersion)
	case err == nil && slices.Contains(upgradable, v):
		_, err = db.ExecContext(ctx, "UPDATE billsnap_meta SET value = ? WHERE key = 'schema_version'", SchemaVersion)
	case err == nil && v != SchemaVersion:
		err = fmt.Errorf("the state has schema version %s; this billsnap knows %s", v, SchemaVersion)
	}
	return err
}

// FieldIDsSQL is the state's catalogue of field IDs: every ID a table's
// columns have had, with the column's name and kind then, and the first
// snapshot that had it. Rows are never deleted (retention deletes the
// rows of tables with a snapshot_id column, which this has not), so an ID
// is never given to another column; the read model shows them as the
// records' field_ids.
const FieldIDsSQL = `
CREATE TABLE IF NOT EXISTS field_ids (
  table_name VARCHAR NOT NULL,
  column_name VARCHAR NOT NULL,
  kind VARCHAR NOT NULL,
  field_id INTEGER NOT NULL,
  first_snapshot VARCHAR NOT NULL,
  PRIMARY KEY (table_name, field_id)
);
`

// ParquetColumnsSQL records the columns of each table's Parquet in each
// snapshot (their names and kinds, in order), so that the read model's
// view of a table reads its snapshots' files by position when they all
// have the same columns: reading them by name (DuckDB's union_by_name)
// opens the footer of every file of every snapshot kept whenever the view
// is made. Retention deletes a snapshot's rows.
const ParquetColumnsSQL = `
CREATE TABLE IF NOT EXISTS parquet_columns (
  snapshot_id VARCHAR NOT NULL,
  table_name VARCHAR NOT NULL,
  columns VARCHAR NOT NULL,
  PRIMARY KEY (snapshot_id, table_name)
);
`

// SnapshotFilesSQL is the manifest's record of every Parquet file of a
// snapshot as it was written: its table, its name in the table's
// partition (part-00000.parquet), its size and SHA-256 (hex). Recorded
// with the rest of the manifest, so a snapshot past its point of no
// return has it; a snapshot published by a billsnap before it has no
// rows, and its files are not verified. Retention deletes a snapshot's
// rows. What verifies the files against it: docs/store.md, Tampering.
const SnapshotFilesSQL = `
CREATE TABLE IF NOT EXISTS snapshot_files (
  snapshot_id VARCHAR NOT NULL,
  table_name VARCHAR NOT NULL,
  file VARCHAR NOT NULL,
  bytes BIGINT NOT NULL,
  sha256 VARCHAR NOT NULL,
  PRIMARY KEY (snapshot_id, table_name, file)
);
`

// SnapshotMacrosSQL are the state's macros <table>_of(snapshot) of the
// per-snapshot record tables: a snapshot's rows, as in the read model.
const SnapshotMacrosSQL = `
CREATE MACRO IF NOT EXISTS snapshot_tables_of(snap) AS TABLE SELECT * FROM snapshot_tables WHERE snapshot_id = snap;
CREATE MACRO IF NOT EXISTS snapshot_fields_of(snap) AS TABLE SELECT * FROM snapshot_fields WHERE snapshot_id = snap;
`
