package snapshot

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/golden"
)

// The DuckDB schema analysts query is stable: tables, views, columns, types.
func TestDuckDBSchemaGolden(t *testing.T) {
	t.Parallel()
	cfg, _, _ := publishedStore(t)
	rows, err := readDB(t, cfg).Query(`SELECT c.table_name, t.table_type, c.column_name, c.data_type, c.is_nullable
		FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE c.table_schema = 'main' ORDER BY c.table_name, c.ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	last := ""
	for rows.Next() {
		var table, kind, col, typ, null string
		if err := rows.Scan(&table, &kind, &col, &typ, &null); err != nil {
			t.Fatal(err)
		}
		if table != last {
			fmt.Fprintf(&b, "\n%s (%s)\n", table, kind)
			last = table
		}
		fmt.Fprintln(&b, strings.TrimRight(fmt.Sprintf("  %-24s %-26s %s", col, typ, map[string]string{"YES": "", "NO": "not null"}[null]), " "))
	}
	golden.Check(t, "duckdb_schema.golden", []byte(strings.TrimPrefix(b.String(), "\n")))
}

// Parquet files read back by DuckDB with the expected logical types: UTF8
// strings (not BLOB), timestamps with time zone, decimals.
func TestParquetTypesGolden(t *testing.T) {
	t.Parallel()
	cfg, sum, key := publishedStore(t)
	db := readDB(t, cfg)
	var b strings.Builder
	for _, tb := range catalog.Tables() {
		glob := filepath.Join(cfg.Out, "parquet", tb.Name, "*", "*.parquet")
		rows, err := db.Query(fmt.Sprintf("DESCRIBE SELECT * FROM read_parquet('%s', hive_partitioning = true)", glob))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s\n", tb.Name)
		for rows.Next() {
			var name, typ string
			var x1, x2, x3, x4 any
			rows.Scan(&name, &typ, &x1, &x2, &x3, &x4)
			fmt.Fprintf(&b, "  %-24s %s\n", name, typ)
		}
		rows.Close()
	}
	golden.Check(t, "parquet_types.golden", []byte(b.String()))
	if n := count(t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s', hive_partitioning = true) WHERE snapshot_id = ?",
		filepath.Join(cfg.Out, "parquet", "invoices", "*", "*.parquet")), sum.ID); n != key.Tables["invoices"].Count {
		t.Errorf("the hive partition column does not select the snapshot: %d rows", n)
	}
}
