// Package findings holds what a reconciliation produces and what reads
// it: the [Report], its [Finding] values with their status, waiver,
// customer and recheck, the rules' descriptions ([Rule]), the [Period],
// the [Waiver] values and their file ([LoadWaivers]), [Materiality] and
// its judgement ([Report.Judge], [Report.StillMaterial]), and the figures
// the reports, notifications and the workspace show: totals per rule and
// currency ([Report.Totals]), the sign-off's digest ([Report.Digest]), a
// point of the trend ([TrendPoint], which reconcile.Trend fills), and the
// untyped values that kept findings from being judged ([Unjudged]).
//
// It is data and pure functions: no SQL, no store. Package reconcile runs
// the rules over a snapshot and fills a Report; notify, config, reports,
// the workspace, fix and recheck read one without standing on the engine.
package findings
