// Package readmodel reads the read model: the DuckDB file readers open
// (built and shown by package modelfile), and every query Go code makes of
// it and of the store's state.
//
// # Queries
//
// Each query is a typed function over a [Querier] (a *sql.DB or a
// *sql.Conn) that returns typed rows, one file per family:
//
//   - query_snapshots.go: the snapshots ([Snapshots], [ByID], [Latest],
//     [PreviousComplete], [CompleteIDs], [LastComplete], [UntypedColumns]).
//   - query_findings.go: the findings of a reconciliation, each with its
//     latest recheck ([Findings] with a [Filter], an [Order] of a closed set
//     of [SortKey] values and a [Page]; [CountFindings], [RuleTotals]).
//   - query_reconciliations.go: the stored reconciliations and their totals
//     ([ReconciliationsOf], [ReconciledAfter], [AsOf], [Trend]).
//   - query_runs.go: what the metrics of runs read ([OpenBySeverity],
//     [NotJudged], [FieldOutcomes], [Records]).
//   - query_records.go: one record of a snapshot's tables ([RecordOf],
//     [IDsWhere], [SnapshotsHolding], [RawOf]).
//   - query_manifest.go: a snapshot's manifest and fields ([Manifest],
//     [ManifestOf], [Fields], [LatestNotes]), as package manifest's types.
//   - query_history.go: the history's versions and changes ([Versions],
//     [Timeline], [ChangesBetween], [ReadAsOf]).
//   - query_workspace.go and query_flux.go: what the workspace's pages and
//     the flux review read ([Pending], [FiguresOf]).
//
// Values are placeholders. What is spelled into SQL is only a relation's or
// a catalogue table's name, or a sort key of the closed set. No other
// package spells SQL naming snapshots, findings, unjudged, rechecks,
// reconciliations, reconciliation_totals, snapshot_tables or
// snapshot_fields; the rules' SQL over the latest_ tables stays in package
// reconcile.
//
// # Readers
//
// [Open] opens the public file read-only, attached so that a long-running
// reader sees each publish; [Query] runs one statement of a caller's;
// [TornRead] says whether an error came from a publish replacing the file
// under the reader. The store's OpenRead opens it for callers that have a
// configuration.
//
// It imports nothing of snapshot, reconcile, fix, schedule, job or
// workspace, so all of them can call it.
package readmodel
