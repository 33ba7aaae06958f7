// Package findings holds what a reconciliation produces and what reads
// it: the report, its findings with their status, waiver, customer and
// recheck, the rules' descriptions, the period, the waivers and their
// file, materiality and its judgement, and the figures the reports,
// notifications and the workspace show (totals per rule and currency,
// the sign-off's digest).
//
// It is data and pure functions: no SQL, no store. Package reconcile runs
// the rules over a snapshot and fills a Report; notify, config, reports
// and the workspace read one without standing on the engine.
package findings
