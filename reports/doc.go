// Package reports renders a reconciliation's findings and the snapshot's
// facts for the people who act on them: a terminal summary, and the
// findings as JSON lines and CSV.
package reports
