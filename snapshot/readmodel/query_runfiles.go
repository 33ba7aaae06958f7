package readmodel

import (
	"context"
	"database/sql"
	"errors"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/snapshot/runrec"
)

// The queries of one reconciliation read its run records' files alone:
// the views findings, unjudged and rechecks read every file the index
// lists, and a view read by name opens every file's footer to be bound,
// whatever the filter, so that a query of one reconciliation cost what the
// store had kept. They read through the macros <kind>_in(files)
// (runrec.Records.Views) the files that run_files lists of it.

// runSource is a relation of run records a query reads, and the
// arguments of its placeholders, which come before the query's own.
type runSource struct {
	rel  string
	args []any
}

// runSources are the relations of each kind of run record of one
// reconciliation: its files (files, by kind), or, when views is set, the
// views of every file.
type runSources struct {
	files map[string][]string
	views bool
}

// of is the relation of kind's rows.
func (s runSources) of(kind runrec.Kind) runSource {
	if s.views {
		return runSource{rel: kind.Name}
	}
	return runSource{rel: kind.Name + "_in(?)", args: []any{s.files[kind.Name]}}
}

// ofRun runs read over the stored run records of reconciliation (id,
// period): the findings and what was not judged of that period, the
// rechecks of the snapshot. A read model published before it had the
// macros (a catalog error) is read through the views, as before, until
// the next publish gives it the macros; so is a database that keeps the
// run records in tables (runrec.Plain).
func ofRun[T any](ctx context.Context, q Querier, id, period string, read func(runSources) (T, error)) (T, error) {
	src, err := runFilesOf(ctx, q, id, period)
	if err != nil && !catalogError(err) {
		var zero T
		return zero, err
	}
	var out T
	if err == nil {
		out, err = read(src)
	}
	if catalogError(err) {
		return read(runSources{views: true})
	}
	return out, err
}

// runFilesOf are the files the index lists of reconciliation (id,
// period), by kind. (Their names are the index's file, spelled out for
// the state's index, which has none.)
func runFilesOf(ctx context.Context, q Querier, id, period string) (runSources, error) {
	type file struct{ kind, name string }
	files, err := collect(ctx, q, func(rows *sql.Rows) (file, error) {
		var f file
		err := rows.Scan(&f.kind, &f.name)
		return f, err
	}, "SELECT kind, snapshot_id || '.' || seq || '.parquet' FROM run_files WHERE snapshot_id = ? AND (kind = ? OR "+periodIs+") ORDER BY seq", id, runrec.Rechecks.Name, period)
	src := runSources{files: map[string][]string{}}
	for _, f := range files {
		src.files[f.kind] = append(src.files[f.kind], f.name)
	}
	return src, err
}

// catalogError tells whether err is DuckDB's error of a name its catalog
// does not have.
func catalogError(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeCatalog
}
