// Package reconcile turns a snapshot into findings: every rule of
// docs/rules.md is one SQL file embedded from rules/,
// run over the snapshot's tables in DuckDB, money in DECIMAL throughout.
//
// A rule is a query returning the columns entity, entity_id, amount,
// currency and detail, with a header of comment lines naming its id,
// severity, title and description. It reads the snapshot through the views
// cur.<table> (and prev.<table>, the previous complete snapshot), and the
// session variables snapshot_id, previous_snapshot_id, as_of (TIMESTAMPTZ),
// grace (INTERVAL), period_start and period_end (TIMESTAMPTZ, NULL without
// a period); the macros cur.in_period(ts) and cur.qty(x) help. A directory
// of user .sql files adds rules, or replaces a shipped rule with its ID.
//
// Run applies the waivers, keys every finding by (rule, entity_id) against
// the previous complete snapshot's findings (new, recurring with the
// snapshot it was first seen in, or resolved), stores the findings in the
// findings table, and judges materiality.
package reconcile
