// Package layout names every path of an output directory: the files and
// folders readers see (the records, the incomplete snapshots, the lock),
// and billsnap's private ones under DIR/.billsnap (the state, the history,
// the journal, the ledger, the record of writes and of notifications).
// The configured ones (duckdb.file, parquet.dir) are named through
// [Dir.Under]. No other package spells a path of the store; each asks
// [Dir].
package layout

import "path/filepath"

// Dir is an output directory (the configuration's out).
type Dir string

// Under is path rel, one the configuration gives relative to the output
// directory (duckdb.file, parquet.dir, reports.dir), under it.
func (d Dir) Under(rel string) string { return filepath.Join(string(d), rel) }

// What readers see.

// Records is the tree of billsnap's own tables as readers see them
// (runrec.Records in package snapshot/runrec).
func (d Dir) Records() string { return d.Under("records") }

// Incomplete is the Parquet tree of incomplete snapshots.
func (d Dir) Incomplete() string { return d.Under("incomplete") }

// ExportLock is the lock of the one export at a time.
func (d Dir) ExportLock() string { return d.Under("billsnap.lock") }

// Staging holds the snapshots being taken, a folder each: Staged(id),
// with a table's Parquet in a folder of the table's name and the
// snapshot's DuckDB file, StagedModel(id).
func (d Dir) Staging() string              { return d.Under(".staging") }
func (d Dir) Staged(id string) string      { return filepath.Join(d.Staging(), id) }
func (d Dir) StagedModel(id string) string { return filepath.Join(d.Staged(id), "model.duckdb") }

// Billsnap's own: opened only by billsnap, where no reader can lock it.

// Private is DIR/.billsnap, which holds the rest.
func (d Dir) Private() string { return d.Under(privateDir) }

// privateDir is Private's name under the output directory.
const privateDir = ".billsnap"

func (d Dir) private(name string) string { return filepath.Join(d.Private(), name) }

// State is billsnap's state: the manifest, fields, reconciliations and
// the run records' index.
func (d Dir) State() string { return d.private("state.duckdb") }

// StateTemp is where the sections' DuckDB spills what does not fit in
// memory.
func (d Dir) StateTemp() string { return d.private("state.tmp") }

// StateLock is held through each section of the state.
func (d Dir) StateLock() string { return d.private("state.lock") }

// ModelNext is where the next read model is built, before it is renamed
// over the public file; ModelInfo says what the public file holds (the
// snapshot of its latest_ tables, the key of its views), written after
// it.
func (d Dir) ModelNext() string { return d.private("model.next.duckdb") }
func (d Dir) ModelInfo() string { return d.private("model.json") }

// OldMaster is the private copy of the read model a billsnap before kept
// (reconcile read it): removed once a model is published without it.
func (d Dir) OldMaster() string { return d.private("model.duckdb") }

// ViewsTemplate is the DuckDB file each export's starts as, its views
// bound.
func (d Dir) ViewsTemplate() string { return d.private("views.duckdb") }

// PublishPending and PrunePending mark a publish or a prune that a crash
// may have cut short.
func (d Dir) PublishPending() string { return d.private("publish.pending") }
func (d Dir) PrunePending() string   { return d.private("prune.pending") }

// History holds the run records and the snapshots' manifests, a file
// each, written once.
func (d Dir) History() string { return d.private("history") }

// HistoryStaging holds the run records a reconciliation wrote before the
// section that moves them into History.
func (d Dir) HistoryStaging() string { return filepath.Join(d.History(), "staging") }

// RunsRecord is the ended runs the runs record was last written from.
func (d Dir) RunsRecord() string { return d.private("runs.jsonl") }

// Runs is the journal of every run, a file a run.
func (d Dir) Runs() string { return d.private("runs") }

// ReadyProbe is the pattern (os.CreateTemp's) of the file readiness
// writes and removes in the journal's folder to learn that the store can
// take a run; the journal reads only its *.json.
const ReadyProbe = ".readyz-*"

// Ledger is the audited record of what finance does in the workspace.
// Package ledger keeps two files beside it, named from it: its head as
// the last write recorded it (ledger.jsonl.head) and, once it was chained
// by billsnap ledger chain, the ledger as it was (ledger.jsonl.unchained).
func (d Dir) Ledger() string { return d.private("ledger.jsonl") }

// Closes holds the closed records of periods closed in the workspace: a
// directory per close, under its period, each file's SHA-256 in the
// ledger's close entry.
func (d Dir) Closes() string { return d.private("closes") }

// Fixes is the record of every write to the service.
func (d Dir) Fixes() string { return d.private("fixes.jsonl") }

// Notifications is the record of what was sent to each target.
func (d Dir) Notifications() string { return d.private("notifications.jsonl") }

// IcebergCatalog is the default file of the lake's sql catalog, relative
// to the output directory.
const IcebergCatalog = privateDir + "/iceberg.db"
