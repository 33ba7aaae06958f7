// Package history keeps every version of every record as validity
// ranges, moved only by complete snapshots, and the change feed between
// them.
//
// A complete snapshot S moves history one step per table: its rows are
// compared, by a hash of each record as the service sent it (_raw), with
// the current versions the step before left (the index). A record whose
// hash changed (and whose top-level fields did: a record sent again with
// the same values is not a change), or that S lacks, has its version
// closed: the previous snapshot's row, with its validity range, goes to a
// file of versions written once; a record S adds or changed starts a new
// version at S. The current versions are never stored twice: they are
// S's rows, and the index holds only their IDs, hashes and where each
// version began. So a step costs the table's current size and its
// changes, never the length of the history.
//
// Files, under a root (the store's DIR/.billsnap/history), each written
// once, under the name of the snapshot that took the step:
//
//	versions/<table>/<S>.parquet   the versions S closed
//	current/<table>/<S>.parquet    the index of the versions current after S
//	changes/<table>/<S>.parquet    what S changed: inserts, updates (with the
//	                               fields that changed, old and new), deletes
//
// and packs, which merge the versions and changes files of many steps
// of a table into one file of each (compact.go):
//
//	versions/<table>/pack-<first>--<last>.parquet
//	changes/<table>/pack-<first>--<last>.parquet
//
// Which steps count is what the state's history_steps lists (one row per
// table and step), and which file holds each its pack column (Keep): a
// file of a step the state does not list (a section that did not commit),
// a step's own file once a pack holds it, and a pack no step is in, are in
// no view, and of a pack only the rows of the steps listed are.
//
// # What it offers
//
// [Take] takes one table's step: the rows hashed and compared with the
// index the step before left, the versions closed, the changes with the
// fields that changed, the new index. The state's history_steps and what
// reads it: [Heads], [Behind], [Record], [Prunable], [Forget]. A run's
// staged list of steps: [Stage], [Staged]. [EnsureEmpty] keeps an empty
// file in each folder, so the views have something to read. [Views] are
// the read model's relations of history: <table>_history, <table>_asof,
// changes, changes_between, history_snapshots and snapshot_time;
// [Relation] and [AsOf] are what query --as-of reads too. Packing the
// files of older steps: [Plan], [Pack], [Packed], and [Dead], the files
// no view reads any more.
//
// It knows no store, and imports nothing of snapshot, runrec or readmodel.
// Package snapshot takes the steps (its loader's hook takes a table's
// step as each walk's table is loaded) and records them in the section
// that records the snapshot complete, or catches history up after a crash;
// runrec links its folders into the records; readmodel makes its views.
// docs/history.md is the history as readers see it.
package history

import (
	"fmt"
	"path/filepath"
	"time"
)

// The folders of history under its root.
const (
	Versions = "versions"
	Current  = "current"
	Changes  = "changes"
)

// Folders are history's folders, in the order views read them.
func Folders() []string { return []string{Versions, Current, Changes} }

// EmptyFile is the file of no rows, with the folder's columns, that each
// of a table's folders holds, so that a glob of it always matches.
const EmptyFile = "empty.parquet"

// File is the file of table's step to snapshot in folder kind under root.
func File(root, kind, table, snapshot string) string {
	return filepath.Join(root, kind, table, snapshot+".parquet")
}

// StateSQL is the state's table of steps: one row a table a complete
// snapshot that moved history, with the step before it (NULL for the
// first, the base, which holds every record as inserted but records no
// change), what it counted, and the pack that holds its versions and
// changes (NULL while they are files of their own: compact.go). It has
// no snapshot_id column: retention, which deletes a pruned snapshot's
// rows from every table keyed so, leaves history alone.
const StateSQL = `
CREATE TABLE IF NOT EXISTS history_steps (
  snapshot VARCHAR NOT NULL,
  table_name VARCHAR NOT NULL,
  "at" TIMESTAMPTZ NOT NULL,
  previous VARCHAR,
  inserted BIGINT NOT NULL,
  updated BIGINT NOT NULL,
  deleted BIGINT NOT NULL,
  pack VARCHAR,
  PRIMARY KEY (snapshot, table_name)
);
ALTER TABLE history_steps ADD COLUMN IF NOT EXISTS pack VARCHAR;
`

// TimeOf is the time a snapshot stands for in history: its start, to
// the microsecond, as the state records it (its ID names the second). A
// version is valid from the time of the first complete snapshot that
// held it.
func TimeOf(started time.Time) time.Time { return started.UTC().Truncate(time.Microsecond) }

// Counts are what a step of one table found.
type Counts struct {
	Inserted, Updated, Deleted int64
}

// Step is one step of one table: to snapshot To at time At, from the
// step Previous ("" for the base).
type Step struct {
	Table    string
	To       string
	At       time.Time
	Previous string
	Counts
	Files []string `json:"-"` // the files it wrote (Take)
}

func (s Step) String() string {
	return fmt.Sprintf("history of %s: %s -> %s", s.Table, s.Previous, s.To)
}
