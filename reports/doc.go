// Package reports renders a reconciliation's findings and the snapshot's
// facts for the people who act on them: a terminal table and a Markdown
// summary for a cron mail, a self-contained HTML page (with SVG charts),
// an XLSX workbook for closing the month (written by package workbook),
// and CSV and JSON of every finding.
//
// Renderers stream: they read the findings held by the findings.Report
// once, in order, and never build a second copy of them.
//
// What they render is handed in ([Input]) as package findings' and
// manifest's types, so reports stands without the engine and its
// tests link no DuckDB.
package reports
