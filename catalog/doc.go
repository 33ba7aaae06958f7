// Package catalog is the one catalogue of what billsnap takes from the
// service: the tables of a snapshot, each filled from a paged list of the
// service or from a nested list of its parent's records, their typed
// columns (contract columns, which the spec defines, and assumed ones),
// and how each kind of column is typed in Parquet and in DuckDB.
//
//   - schema.go: each list of the service with its path and object code
//     ([Collections]), each table with its typed columns ([Tables]), the
//     child tables ([Children]).
//   - mapping.go: the configuration's fields key applied to the tables
//     ([ApplyFields]); the store and the walk's writers take the tables
//     from it.
//   - dictionary.go: each column's description and codes, the data
//     dictionary that the read model's columns and codes views and
//     docs/fields.md's list of codes are made from ([Table.Docs],
//     [CodesDoc]).
//
// Its lists are its own [Collection], with the fields of
// extract.Collection, which the walk converts (ingest.Walk): it imports no
// HTTP client.
package catalog
