// Package reconcile turns a snapshot into findings: every rule of
// docs/rules.md is one SQL file embedded from rules/, run over the
// snapshot's tables in DuckDB, money in DECIMAL throughout.
//
// A rule is a query returning the columns entity, entity_id, amount,
// currency and detail, with a header of comment lines naming its id,
// severity, title and description ([ParseRule]; [Rules] is the catalogue).
// It reads the snapshot through the views cur.<table> (and prev.<table>,
// the previous complete snapshot), and the session variables snapshot_id,
// previous_snapshot_id, as_of (TIMESTAMPTZ), grace (INTERVAL),
// period_start and period_end (TIMESTAMPTZ, NULL without a period); the
// macros cur.in_period(ts) and cur.qty(x) help. A directory of user .sql
// files adds rules, or replaces a shipped rule with its ID.
//
// [Run] applies the waivers, keys every finding by (rule, entity_id)
// against the previous complete snapshot's findings (new, recurring with
// the snapshot it was first seen in, or resolved), names the customers,
// and judges materiality. What it produces is package findings' types,
// named by that package everywhere: there is no second name here.
//
// It reads a [Source] (the store's reading, or a plain database in its
// tests) and hands the source what it found; it writes nothing to the
// state. What it reads of the store's tables (the snapshot to reconcile,
// the stored findings and reconciliations, the trend, the untyped
// columns) it reads through snapshot/readmodel; a stored row becomes a
// findings.Finding through [FindingOf]. The rules' own SQL over the
// latest_ tables and cur. and prev. stays here.
package reconcile
