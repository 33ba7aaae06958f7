package snapshot

import (
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A store under a directory DuckDB would read as a Hive partition
// (/data/env=prod/out) has no column of it: no table or view of its read
// model has a column env, and no file billsnap wrote of history (an
// index read by the next step, its versions and changes) has one.
func TestAStoreUnderAKeyValueDirectoryHasNoColumnOfIt(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 8}, "")
	cfg := testConfig(srv, filepath.Join(t.TempDir(), "env=prod", "out"))
	for range 2 {
		if _, err := take(t, cfg); err != nil {
			t.Fatal(err)
		}
	}
	db := readDB(t, cfg)
	rows, err := db.Query("SELECT table_name FROM duckdb_columns() WHERE database_name = current_database() AND column_name = 'env'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		rows.Scan(&name)
		t.Errorf("%s has a column env, the directory above the store", name)
	}
	var withEnv, files int
	history := filepath.Join(layout.Dir(cfg.Out).History(), "**", "*.parquet")
	err = db.QueryRow("SELECT count(DISTINCT file_name) FILTER (WHERE name = 'env'), count(DISTINCT file_name) FROM parquet_schema(?)", history).Scan(&withEnv, &files)
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 || withEnv > 0 {
		t.Errorf("history's files: %d of %d have a column env", withEnv, files)
	}
}
