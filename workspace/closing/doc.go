// Package closing is a period's close in the finance workspace: the
// reconciliation of the period's newest sign-off frozen as a closed record
// (the reports' files, findings.jsonl, the rules' SQL, the snapshot's
// manifest, each with its SHA-256) and the close recorded in the ledger
// (Closer.Close), its reopening (Reopen), the close as the overview shows
// it with what came after it (State), and which findings a close covers
// (Covering).
//
// Who may close is the workspace's to check; the flux review of the
// record's reports is handed in (Closer.Flux). It imports no workspace
// package but workspace/recon.
package closing
