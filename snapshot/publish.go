package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// TableStats are one table's figures in a snapshot.
type TableStats struct {
	Table       string
	Collection  string // the walked collection (the parent table of a child)
	Walks       int
	Pages       int
	Received    int64 // records (rows, for a child table) received, duplicates included
	Distinct    int64 // distinct IDs
	TotalCount  int64 // the service's TotalCount; -1 for a child table
	ParquetRows int64
	DuckDBRows  int64
	IDsSHA256   string // SHA-256 of the sorted IDs, each followed by "\n"
	Seconds     float64
	Complete    bool
	Problem     string
}

// Summary is a published (or incomplete) snapshot.
type Summary struct {
	ID       string
	Status   string
	Started  time.Time
	Finished time.Time
	Tables   []TableStats
}

// Publish finishes the snapshot: it closes and reads back the Parquet,
// loads it into DuckDB in one transaction with the manifest, checks that
// the counts agree, and publishes the Parquet (complete snapshots only).
// On error nothing is published; the caller records the failure with Fail.
func (r *Run) Publish(ctx context.Context) (*Summary, error) {
	stats, err := r.verifyParquet(ctx)
	if err != nil {
		return nil, err
	}
	status := StatusPublishing
	for _, st := range stats {
		if !st.Complete {
			status = StatusIncomplete
		}
	}
	if err := r.s.tx(ctx, func(tx *sql.Tx) error { return r.load(ctx, tx, stats, status) }); err != nil {
		return nil, fmt.Errorf("loading into DuckDB: %w", err)
	}
	if status == StatusPublishing {
		if err := r.s.publishParquet(r.ID); err != nil {
			return nil, err
		}
		status = StatusComplete
		if err := r.s.setStatus(ctx, r.ID, status, ""); err != nil {
			return nil, err
		}
	}
	r.removeStaging()
	return &Summary{ID: r.ID, Status: status, Started: r.Started, Finished: r.s.now().UTC(), Tables: stats}, nil
}

// verifyParquet closes every table's files, reads them back and checks the
// counts against what was written and walked.
func (r *Run) verifyParquet(ctx context.Context) ([]TableStats, error) {
	var stats []TableStats
	for _, t := range Tables {
		w := r.writers[t.Name]
		if err := w.close(); err != nil {
			return nil, err
		}
		st := r.tableStats(t, w.rows)
		var distinct int64
		q := fmt.Sprintf("SELECT count(*), count(DISTINCT id) FROM read_parquet(%s)", sqlList(w.files))
		if err := r.s.db.QueryRowContext(ctx, q).Scan(&st.ParquetRows, &distinct); err != nil {
			return nil, fmt.Errorf("reading back the Parquet of %s: %w", t.Name, err)
		}
		if err := st.check(w.rows, distinct); err != nil {
			return nil, err
		}
		stats = append(stats, st)
	}
	return stats, nil
}

// tableStats starts a table's figures from its collection's walk.
func (r *Run) tableStats(t Table, written int64) TableStats {
	coll := t.Name
	for parent, children := range Children {
		for _, ch := range children {
			if ch.Table == t.Name {
				coll = parent
			}
		}
	}
	r.mu.Lock()
	walk, ok := r.walks[coll]
	r.mu.Unlock()
	st := TableStats{Table: t.Name, Collection: coll, Walks: walk.Walks, Pages: walk.Pages, Seconds: walk.Seconds,
		Complete: ok && walk.Complete, Problem: walk.Problem, Received: written, Distinct: -1, TotalCount: -1}
	if !ok {
		st.Problem = "not walked"
	}
	if coll == t.Name {
		st.Received, st.Distinct, st.TotalCount = int64(walk.Records), int64(walk.Distinct), int64(walk.TotalCount)
	}
	return st
}

// check is the agreement of the counts before anything is loaded: rows
// written, read back and (for a walked collection) distinct in the
// Parquet and distinct IDs received.
func (st TableStats) check(written, parquetDistinct int64) error {
	switch {
	case st.ParquetRows != written:
		return fmt.Errorf("table %s: %d rows written but %d read back from Parquet", st.Table, written, st.ParquetRows)
	case st.Distinct >= 0 && (parquetDistinct != st.ParquetRows || st.Distinct != st.ParquetRows):
		return fmt.Errorf("table %s: %d Parquet rows, %d distinct in them, %d distinct IDs received", st.Table, st.ParquetRows, parquetDistinct, st.Distinct)
	case st.Complete && st.TotalCount >= 0 && st.TotalCount != st.ParquetRows:
		return fmt.Errorf("table %s: TotalCount %d but %d rows", st.Table, st.TotalCount, st.ParquetRows)
	}
	return nil
}

// load inserts every table from its staged Parquet, checks the DuckDB
// counts, and writes the manifest, all in tx.
func (r *Run) load(ctx context.Context, tx *sql.Tx, stats []TableStats, status string) error {
	for i, t := range Tables {
		st := &stats[i]
		cols := strings.Join(t.ColumnNames(), ", ")
		q := fmt.Sprintf("INSERT INTO %s (snapshot_id, %s) SELECT ?::VARCHAR, %s FROM read_parquet(%s)", t.Name, cols, cols, sqlList(r.writers[t.Name].files))
		if _, err := tx.ExecContext(ctx, q, r.ID); err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		q = fmt.Sprintf("SELECT count(*), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256('')) FROM %s WHERE snapshot_id = ?", t.Name)
		if err := tx.QueryRowContext(ctx, q, r.ID).Scan(&st.DuckDBRows, &st.IDsSHA256); err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		if st.DuckDBRows != st.ParquetRows {
			return fmt.Errorf("table %s: %d Parquet rows but %d in DuckDB", t.Name, st.ParquetRows, st.DuckDBRows)
		}
		if err := r.manifestRow(ctx, tx, st); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, "UPDATE snapshots SET status = ?, finished = ? WHERE id = ?", status, r.s.now().UTC(), r.ID)
	return err
}

func (r *Run) manifestRow(ctx context.Context, tx *sql.Tx, st *TableStats) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO snapshot_tables VALUES (?, ?, ?, ?, ?, ?, nullif(?, -1), nullif(?, -1), ?, ?, ?, ?, ?, nullif(?, ''))`,
		r.ID, st.Table, st.Collection, st.Walks, st.Pages, st.Received, st.Distinct, st.TotalCount,
		st.ParquetRows, st.DuckDBRows, st.IDsSHA256, st.Seconds, st.Complete, st.Problem)
	return err
}

// sqlList is a DuckDB list literal of strings.
func sqlList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}
