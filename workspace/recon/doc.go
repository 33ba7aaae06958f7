// Package recon is the reconciliations the finance workspace shows, read
// from the read model: which one a page shows (Find, Shown), the findings
// list's Filter and its pages (List), the digest and totals a sign-off
// records (SignOffOf), the waivers made since a reconciliation (Standing,
// PendingOf), the work of its findings (WorkOf), and the ConflictError of
// an action its state does not allow yet.
//
// It knows nothing of HTTP requests beyond a query string, and imports no
// workspace package: the workspace and its rooms (workspace/closing,
// workspace/fluxreview) stand on it.
package recon
