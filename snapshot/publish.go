package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/ingest"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/snapshot/modelfile"
)

// Summary is a published (or incomplete) snapshot.
type Summary struct {
	ID       string
	Status   string
	Started  time.Time
	Finished time.Time
	Tables   []manifest.TableStats
	Fields   []manifest.FieldStats // what the snapshot received of each field
}

// Publish finishes the snapshot. Every table has been loaded into the
// run's DuckDB file from its Parquet as its walk ended (see loader);
// Publish checks that the counts agree (rows written to Parquet = rows
// read back from it = rows in DuckDB = distinct IDs in them, and = records
// received = TotalCount for a complete collection), records the manifest
// as publishing (or incomplete), and publishes: a complete snapshot's
// Parquet goes into the tree and its DuckDB file becomes the read model,
// an incomplete one's Parquet into the incomplete tree. The manifest is
// the point of no return: a run stopped after it is finished by the next
// (recover). On error before it nothing is published; the caller records
// the failure with Fail (which leaves a snapshot past that point alone).
func (r *Run) Publish(ctx context.Context) (*Summary, error) {
	phases := newPhases()
	if err := r.loader.Wait(); err != nil {
		return nil, err
	}
	phases.end("loading")
	var stats []manifest.TableStats
	var sums []tableFile
	status := StatusPublishing
	for _, t := range r.s.tables {
		st, err := r.verified(t)
		if err != nil {
			return nil, err
		}
		if !st.Complete {
			status = StatusIncomplete
		}
		stats = append(stats, st)
		if sums, err = r.fileSums(t.Name, sums); err != nil {
			return nil, err
		}
	}
	phases.end("verifying")
	if status == StatusPublishing {
		if err := r.stageHistory(); err != nil {
			return nil, err
		}
		phases.end("history")
	}
	if err := r.closeDB(); err != nil {
		return nil, fmt.Errorf("closing the snapshot's DuckDB file: %w", err)
	}
	crashpoint.Hit("publish.verified")
	fields := r.Fields()
	// The manifest is committed before anything is published, so that a
	// tree never shows a snapshot the state has not recorded.
	err := r.s.Update(ctx, func(sec *Section) error {
		return tx(ctx, sec.DB(), func(t *sql.Tx) error { return r.manifest(ctx, t, stats, sums, fields, status) })
	})
	if err != nil {
		return nil, fmt.Errorf("recording the snapshot: %w", err)
	}
	r.committed = true
	phases.end("recording")
	crashpoint.Hit("publish.manifest")
	err = r.s.Update(ctx, func(sec *Section) error {
		var err error
		status, err = r.s.finish(ctx, sec, r.ID, status)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.removeStaging()
	phases.end("publishing")
	r.s.log.Debug("snapshot published: what was left after the walks", append([]any{"snapshot", r.ID}, phases.attrs()...)...)
	crashpoint.Hit("publish.done")
	return &Summary{ID: r.ID, Status: status, Started: r.Started, Finished: r.s.now().UTC(), Tables: stats, Fields: fields}, nil
}

// verified is a table's figures, checked.
func (r *Run) verified(t catalog.Table) (manifest.TableStats, error) {
	_, written := r.staged.Files(t.Name)
	st := r.tableStats(t, written)
	lt, ok := r.loader.Table(t.Name)
	if !ok {
		return st, fmt.Errorf("table %s was not loaded: %s", t.Name, orNotWalked(st.Problem))
	}
	st.ParquetRows, st.DuckDBRows, st.IDsSHA256 = lt.ParquetRows, lt.Rows, lt.IDsSHA256
	return st, check(st, written, lt.Distinct)
}

func orNotWalked(problem string) string {
	if problem == "" {
		return "its walk did not end"
	}
	return problem
}

// tableStats starts a table's figures from its collection's walk.
func (r *Run) tableStats(t catalog.Table, written int64) manifest.TableStats {
	coll := catalog.CollectionOf(t.Name)
	r.mu.Lock()
	walk, ok := r.walks[coll]
	r.mu.Unlock()
	st := manifest.TableStats{Table: t.Name, Collection: coll, Walks: walk.Walks, Pages: walk.Pages, Seconds: walk.Seconds,
		Complete: ok && walk.Complete, Problem: walk.Problem, Received: written, Distinct: -1, TotalCount: -1}
	if !ok {
		st.Problem = "not walked"
	}
	if coll == t.Name {
		st.Received, st.Distinct, st.TotalCount = int64(walk.Records), int64(walk.Distinct), int64(walk.TotalCount)
	}
	return st
}

// check is the agreement of the counts: rows written to Parquet, read
// back from it and in DuckDB, distinct IDs in DuckDB (for a walked
// collection: no ID twice), and for a complete one the records received
// and TotalCount. An incomplete collection received more records than it
// keeps when an ID came twice: the walk kept the first.
func check(st manifest.TableStats, written, distinct int64) error {
	switch {
	case st.ParquetRows != written:
		return fmt.Errorf("table %s: %d rows written but %d read back from Parquet", st.Table, written, st.ParquetRows)
	case st.DuckDBRows != st.ParquetRows:
		return fmt.Errorf("table %s: %d Parquet rows but %d in DuckDB", st.Table, st.ParquetRows, st.DuckDBRows)
	case st.TotalCount >= 0 && distinct != st.DuckDBRows:
		return fmt.Errorf("table %s: %d rows but %d distinct IDs in them", st.Table, st.DuckDBRows, distinct)
	case st.Complete && st.TotalCount >= 0 && st.Received != st.DuckDBRows:
		return fmt.Errorf("table %s: %d records received but %d rows", st.Table, st.Received, st.DuckDBRows)
	case st.Complete && st.TotalCount >= 0 && st.TotalCount != st.DuckDBRows:
		return fmt.Errorf("table %s: TotalCount %d but %d rows", st.Table, st.TotalCount, st.DuckDBRows)
	}
	return nil
}

// manifest writes the per-table figures, every Parquet file's size and
// SHA-256, what came of each field, and the status, in tx of the state.
func (r *Run) manifest(ctx context.Context, tx *sql.Tx, stats []manifest.TableStats, sums []tableFile, fields []manifest.FieldStats, status string) error {
	if err := r.manifestRows(ctx, tx, stats); err != nil {
		return err
	}
	if err := fileRows(ctx, tx, r.ID, sums); err != nil {
		return err
	}
	if err := r.fieldRows(ctx, tx, fields); err != nil {
		return err
	}
	if err := modelfile.RecordColumns(ctx, tx, r.ID, r.s.tables); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE snapshots SET status = ?, finished = ? WHERE id = ?", status, r.s.now().UTC(), r.ID)
	return err
}

// manifestRows writes the per-table figures, in one statement (each
// statement is parsed, planned and run on its own).
func (r *Run) manifestRows(ctx context.Context, tx *sql.Tx, stats []manifest.TableStats) error {
	if len(stats) == 0 {
		return nil
	}
	const row = "(?, ?, ?, ?, ?, ?, nullif(?, -1), nullif(?, -1), ?, ?, ?, ?, ?, nullif(?, ''))"
	rows := make([]string, len(stats))
	args := make([]any, 0, 14*len(stats))
	for i, st := range stats {
		rows[i] = row
		args = append(args, r.ID, st.Table, st.Collection, st.Walks, st.Pages, st.Received, st.Distinct, st.TotalCount,
			st.ParquetRows, st.DuckDBRows, st.IDsSHA256, st.Seconds, st.Complete, st.Problem)
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO snapshot_tables VALUES "+strings.Join(rows, ", "), args...)
	return err
}

// tableFile is a staged Parquet file of a table, as it was written.
type tableFile struct {
	table string
	ingest.FileSum
}

// fileSums appends table's staged files as they were written to out: every
// file the table has, each hashed as it was written (ingest.FileSum).
func (r *Run) fileSums(table string, out []tableFile) ([]tableFile, error) {
	files, _ := r.staged.Files(table)
	sums := r.staged.Sums(table)
	if len(sums) != len(files) {
		return out, fmt.Errorf("table %s: %d Parquet files but %d hashed as written", table, len(files), len(sums))
	}
	for _, s := range sums {
		out = append(out, tableFile{table: table, FileSum: s})
	}
	return out, nil
}

// fileRows records snapshot id's Parquet files (their table, name, size
// and SHA-256) in the manifest, in one statement.
func fileRows(ctx context.Context, tx *sql.Tx, id string, sums []tableFile) error {
	if len(sums) == 0 {
		return nil
	}
	var tables, names, hashes []string
	var sizes []int64
	for _, f := range sums {
		tables, names = append(tables, f.table), append(names, filepath.Base(f.Path))
		sizes, hashes = append(sizes, f.Bytes), append(hashes, f.SHA256)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO snapshot_files SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),
		unnest(?::BIGINT[]), unnest(?::VARCHAR[])`, id, tables, names, sizes, hashes)
	if err != nil {
		return fmt.Errorf("recording the Parquet files' SHA-256: %w", err)
	}
	return nil
}

// phases times the steps of a piece of work, for the debug log.
type phases struct {
	last time.Time
	list []any // name, duration, name, duration…
}

func newPhases() *phases { return &phases{last: time.Now()} }

// end ends the step called name.
func (p *phases) end(name string) {
	now := time.Now()
	p.list = append(p.list, name, now.Sub(p.last).Round(time.Millisecond))
	p.last = now
}

// attrs are the steps and their durations, as log attributes.
func (p *phases) attrs() []any { return p.list }

// fieldRows writes what the snapshot received of each field, in tx: one
// statement, each column a list parameter, as a statement with a
// parameter a value cost more to bind than the rest of the manifest.
func (r *Run) fieldRows(ctx context.Context, tx *sql.Tx, fields []manifest.FieldStats) error {
	if len(fields) == 0 {
		return nil
	}
	var c fieldColumns
	for _, f := range fields {
		c.add(f)
	}
	const q = `INSERT INTO snapshot_fields SELECT ?, t, nullif(c, ''), f, nullif(k, ''), contract, nulls, strings, numbers, booleans,
		objects, arrays, coerced, untyped, nullif(example, ''), repaired
		FROM (SELECT unnest(?::VARCHAR[]) AS t, unnest(?::VARCHAR[]) AS c, unnest(?::VARCHAR[]) AS f, unnest(?::VARCHAR[]) AS k,
			unnest(?::BOOLEAN[]) AS contract, unnest(?::BIGINT[]) AS nulls, unnest(?::BIGINT[]) AS strings,
			unnest(?::BIGINT[]) AS numbers, unnest(?::BIGINT[]) AS booleans, unnest(?::BIGINT[]) AS objects,
			unnest(?::BIGINT[]) AS arrays, unnest(?::BIGINT[]) AS coerced, unnest(?::BIGINT[]) AS untyped,
			unnest(?::VARCHAR[]) AS example, unnest(?::BIGINT[]) AS repaired, unnest(range(?)) AS n)
		ORDER BY n`
	_, err := tx.ExecContext(ctx, q, r.ID, c.table, c.column, c.field, c.kind, c.contract, c.null, c.str, c.number, c.boolean,
		c.object, c.array, c.coerced, c.untyped, c.example, c.repaired, len(fields))
	if err != nil {
		return fmt.Errorf("recording the fields: %w", err)
	}
	return nil
}

// fieldColumns are the fields' figures by column, a list each.
type fieldColumns struct {
	table, column, field, kind, example                                   []string
	contract                                                              []bool
	null, str, number, boolean, object, array, coerced, untyped, repaired []int64
}

func (c *fieldColumns) add(f manifest.FieldStats) {
	t := f.Types
	c.table, c.column, c.field, c.kind = append(c.table, f.Table), append(c.column, f.Column), append(c.field, f.Field), append(c.kind, f.Kind)
	c.contract, c.example = append(c.contract, f.Contract), append(c.example, f.Example)
	c.null, c.str, c.number = append(c.null, t.Null), append(c.str, t.String), append(c.number, t.Number)
	c.boolean, c.object, c.array = append(c.boolean, t.Boolean), append(c.object, t.Object), append(c.array, t.Array)
	c.coerced, c.untyped, c.repaired = append(c.coerced, f.Coerced), append(c.untyped, f.Untyped), append(c.repaired, f.Repaired)
}
