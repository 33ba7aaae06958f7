// Package reports renders a reconciliation's findings and the snapshot's
// facts for the people who act on them: a terminal table and a Markdown
// summary for a cron mail, a self-contained HTML page, an XLSX workbook for
// closing the month, and CSV and JSON of every finding.
//
// Renderers stream: they read the findings held by the findings.Report
// once, in order, and never build a second copy of them.
package reports
