// Package e2etest is what the tests that run billsnap share: billsnap in
// process (CLI, RunWith, against cmd/internal/cli) or as a child (Binary,
// the test binary itself, and BinaryWithTags, billsnap built), the
// exports made once per test binary (Exported, Reconciled), and the
// checks of a store (CheckReaders, CheckCleanedUp). Every package of
// tests that uses it has Main as its TestMain. Only tests import it.
package e2etest
