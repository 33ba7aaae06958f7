// Package catalog is the one catalogue of what billsnap takes from the
// service: the tables of a snapshot, each filled from a paged list of the
// service or from a nested list of its parent's records, their typed
// columns (contract columns, which the spec defines, and assumed ones),
// and how each kind of column is typed in Parquet and in DuckDB. The
// configuration's fields key is applied here (ApplyFields); the store and
// the walk's writers take the tables from it.
package catalog
