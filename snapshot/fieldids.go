package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/catalog"
)

// assignFieldIDs gives every column of tables its field ID, recording in
// db (the state, in a section) those it gives for the first time; by
// names the snapshot that first has them. A column keeps the ID its
// table, name and kind had before (a column whose kind changed back gets
// its earlier ID again). A column new to its table (a column
// the fields key adds, or one whose kind changed) gets one above the
// highest its table has ever had. A table new to the catalogue numbers
// its columns 1…N in Parquet order.
func assignFieldIDs(ctx context.Context, db *sql.DB, tables []catalog.Table, by string) ([]catalog.Table, error) {
	cat, err := loadFieldIDs(ctx, db)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(tables)
	var rows []string
	var args []any
	for i, t := range out {
		ids := map[string]int{}
		for _, c := range t.ColumnKinds() {
			id, ok := cat.ids[fieldKey{t.Name, c.Name, c.Kind}]
			if !ok {
				cat.highest[t.Name]++
				id = cat.highest[t.Name]
				rows = append(rows, "(?, ?, ?, ?, ?)")
				args = append(args, t.Name, c.Name, c.Kind, id, by)
			}
			ids[c.Name] = id
		}
		out[i].FieldIDs = ids
	}
	if len(rows) > 0 { // one statement, not one a column: a new store records about a hundred
		if _, err := db.ExecContext(ctx, "INSERT INTO field_ids VALUES "+strings.Join(rows, ", "), args...); err != nil {
			return nil, fmt.Errorf("recording the columns' field IDs: %w", err)
		}
	}
	return out, nil
}

// fieldKey is a column of a table, and its kind.
type fieldKey struct{ table, column, kind string }

// fieldCatalogue is the catalogue of field IDs as the state holds it:
// each column's ID, and the highest ID each table has had.
type fieldCatalogue struct {
	ids     map[fieldKey]int
	highest map[string]int
}

// loadFieldIDs reads the catalogue.
func loadFieldIDs(ctx context.Context, db *sql.DB) (fieldCatalogue, error) {
	cat := fieldCatalogue{ids: map[fieldKey]int{}, highest: map[string]int{}}
	rows, err := db.QueryContext(ctx, "SELECT table_name, column_name, kind, field_id FROM field_ids ORDER BY field_id")
	if err != nil {
		return cat, err
	}
	defer rows.Close()
	for rows.Next() {
		var k fieldKey
		var id int
		if err := rows.Scan(&k.table, &k.column, &k.kind, &id); err != nil {
			return cat, err
		}
		cat.ids[k] = id
		cat.highest[k.table] = max(cat.highest[k.table], id)
	}
	return cat, rows.Err()
}
