// Package overview is the finance workspace's overview of one
// reconciliation, read from the read model and the ledger: the verdict,
// the rules table and the totals per currency, the tiles (at risk, open,
// overdue, unassigned, new) and the charts (trend, money at risk, aging,
// per rule, the month's flux lines, kept per read model in a Cache), the
// field notes and the period's sign-offs (Reader.Fill).
//
// The workspace adds the period's close (workspace/closing) and the
// latest changes (workspace/changes) and renders the page. It imports no
// workspace package but workspace/recon.
package overview
