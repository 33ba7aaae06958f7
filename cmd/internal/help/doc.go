// Package help is what billsnap's help says: each command's page (what it
// does, then its usage and flags, then the exit codes it can return, each
// with its meaning for it), the spellings of help and version other tools
// teach, and the nearest command or flag to a mistyped one. It imports
// nothing of the store or the jobs.
package help
