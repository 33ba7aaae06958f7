package snapshot

import (
	"context"
	"database/sql"
)

// Manifest returns the per-table figures recorded for snapshot id, in the
// order of Tables.
func (s *Store) Manifest(ctx context.Context, id string) ([]TableStats, error) {
	return Manifest(ctx, s.db, id)
}

// Manifest reads the per-table figures of snapshot id from db.
func Manifest(ctx context.Context, db *sql.DB, id string) ([]TableStats, error) {
	rows, err := db.QueryContext(ctx, `SELECT table_name, collection, coalesce(walks, 0), coalesce(pages, 0), coalesce(records_received, 0),
		coalesce(distinct_ids, -1), coalesce(total_count, -1), coalesce(parquet_rows, 0), coalesce(duckdb_rows, 0),
		coalesce(ids_sha256, ''), coalesce(seconds, 0), complete, coalesce(problem, '')
		FROM snapshot_tables WHERE snapshot_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byName := map[string]TableStats{}
	for rows.Next() {
		var st TableStats
		if err := rows.Scan(&st.Table, &st.Collection, &st.Walks, &st.Pages, &st.Received, &st.Distinct, &st.TotalCount,
			&st.ParquetRows, &st.DuckDBRows, &st.IDsSHA256, &st.Seconds, &st.Complete, &st.Problem); err != nil {
			return nil, err
		}
		byName[st.Table] = st
	}
	var out []TableStats
	for _, t := range Tables {
		if st, ok := byName[t.Name]; ok {
			out = append(out, st)
		}
	}
	return out, rows.Err()
}
