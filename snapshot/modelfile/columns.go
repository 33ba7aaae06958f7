package modelfile

import (
	"context"
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/state"
)

// columnList is t's columns in Parquet order, with their kinds,
// in one string.
func columnList(t catalog.Table) string {
	var b strings.Builder
	for i, c := range t.ColumnKinds() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name + " " + c.Kind)
	}
	return b.String()
}

// RecordColumns records the columns of every table of snapshot id, in
// the manifest's transaction.
func RecordColumns(ctx context.Context, q state.Querier, id string, tables []catalog.Table) error {
	rows := make([]string, len(tables))
	args := make([]any, 0, 3*len(tables))
	for i, t := range tables {
		rows[i] = "(?, ?, ?)"
		args = append(args, id, t.Name, columnList(t))
	}
	if _, err := q.ExecContext(ctx, "INSERT OR REPLACE INTO parquet_columns VALUES "+strings.Join(rows, ", "), args...); err != nil {
		return fmt.Errorf("recording the tables' columns: %w", err)
	}
	return nil
}

// kept is what the Parquet of the snapshots in one status holds: how many
// there are, and by table the column lists they have (distinct, in order,
// joined by "|"), how many lists, and how many snapshots have them on
// record.
type kept struct {
	total  int
	lists  map[string]string
	counts map[string]int
	listed map[string]int
}

// keptColumns reads the columns of the snapshots of each tree's status,
// from q (the state, in a section).
func keptColumns(ctx context.Context, q state.Querier, trees []ParquetTree) (map[string]kept, error) {
	out := map[string]kept{}
	var statuses []string
	for _, tr := range trees {
		statuses = append(statuses, tr.Status)
	}
	for _, st := range statuses {
		k := kept{lists: map[string]string{}, counts: map[string]int{}, listed: map[string]int{}}
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM snapshots WHERE status = ?", st).Scan(&k.total); err != nil {
			return nil, err
		}
		out[st] = k
	}
	rows, err := q.QueryContext(ctx, `SELECT s.status, c.table_name, c.columns, count(*) FROM snapshots s JOIN parquet_columns c ON s.id = c.snapshot_id
		WHERE list_contains(?, s.status) GROUP BY ALL ORDER BY ALL`, statuses)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var status, name, columns string
		var n int
		if err := rows.Scan(&status, &name, &columns, &n); err != nil {
			return nil, err
		}
		k := out[status]
		if k.lists[name] != "" {
			columns = k.lists[name] + "|" + columns
		}
		k.lists[name], k.counts[name], k.listed[name] = columns, k.counts[name]+1, k.listed[name]+n
	}
	return out, rows.Err()
}

// byName tells whether the snapshots' files of table must be read by
// name: not all of them have the same columns, or some were written
// before their columns were recorded.
func (k kept) byName(table string) bool {
	return k.total > 0 && (k.counts[table] != 1 || k.listed[table] != k.total)
}
