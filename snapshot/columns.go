package snapshot

import (
	"context"
	"fmt"
	"strings"
)

// parquetColumnsSQL records the columns of each table's Parquet in each
// snapshot (their names and kinds, in order), so that the read model's
// view of a table reads its snapshots' files by position when they all
// have the same columns: reading them by name (DuckDB's union_by_name)
// opens the footer of every file of every snapshot kept whenever the view
// is made. Retention deletes a snapshot's rows.
const parquetColumnsSQL = `
CREATE TABLE IF NOT EXISTS parquet_columns (
  snapshot_id VARCHAR NOT NULL,
  table_name VARCHAR NOT NULL,
  columns VARCHAR NOT NULL,
  PRIMARY KEY (snapshot_id, table_name)
);
`

// columnList is the table's columns in Parquet order, with their kinds,
// in one string.
func (t Table) columnList() string {
	var b strings.Builder
	for i, c := range t.columnKinds() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name + " " + c.Kind)
	}
	return b.String()
}

// recordColumns records the columns of every table of snapshot id, in
// the manifest's transaction.
func recordColumns(ctx context.Context, q querier, id string, tables []Table) error {
	for _, t := range tables {
		_, err := q.ExecContext(ctx, "INSERT OR REPLACE INTO parquet_columns VALUES (?, ?, ?)", id, t.Name, t.columnList())
		if err != nil {
			return fmt.Errorf("recording the columns of %s: %w", t.Name, err)
		}
	}
	return nil
}

// byName are the tables whose snapshots in status must be read by name:
// not all of them have the same columns, or some were written before
// their columns were recorded.
func byName(ctx context.Context, q querier, status string) (map[string]bool, error) {
	var total int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM snapshots WHERE status = ?", status).Scan(&total); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if total == 0 {
		return out, nil
	}
	for _, t := range Tables() {
		out[t.Name] = true
	}
	rows, err := q.QueryContext(ctx, `SELECT c.table_name FROM parquet_columns c JOIN snapshots s ON s.id = c.snapshot_id
		WHERE s.status = ? GROUP BY c.table_name HAVING count(DISTINCT c.columns) = 1 AND count(*) = ?`, status, total)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		delete(out, name)
	}
	return out, rows.Err()
}
