// Package changes is the changes page of the finance workspace: what one
// step of the store's history changed (a complete snapshot's inserts,
// updates and deletes per table), read from the read model's history,
// listed and paged, and the overview's summary of the latest step.
//
// The workspace routes to it and renders what it reads (its templates
// name Page's and Step's fields). It imports no workspace package but
// workspace/record, whose snippets the fields' names are cut to.
package changes
