// Package fluxreview is the flux review of a period as the finance
// workspace shows it and takes its explanations: the review read over a
// snapshot and explained by the ledger (Reviewer.Of), the check that
// holds a sign-off until every line over the threshold is explained
// (Check), an explanation recorded (Explain), the review's JSON (Out),
// and what a closed record's reports show of it (ForReports).
//
// The figures and the threshold are package flux's and reconcile's; who
// may explain is the workspace's to check. It imports no workspace
// package but workspace/recon.
package fluxreview
