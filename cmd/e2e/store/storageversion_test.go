package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// readersStorageVersion is the storage version of billsnap.duckdb, as
// DuckDB names it: a file every DuckDB from 1.0 on opens
// (docs/architecture.md). A DuckDB that billsnap moves to and that
// writes a newer one by default would lock out analysts on older ones.
const readersStorageVersion = "v1.0.0+"

// The read model that readers open is written in the storage version
// that the DuckDB versions analysts run open, whichever DuckDB billsnap
// is built with.
func TestTheReadModelKeepsItsStorageVersion(t *testing.T) {
	t.Parallel()
	e := e2etest.ExportOnce(t, e2etest.ExportedOptions)
	if e.Err != nil {
		t.Fatalf("the shared export: %v", e.Err)
	}
	ctx := context.Background()
	db, err := readmodel.Open(ctx, filepath.Join(e.Dir, config.Default().DuckDB.File))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version string
	err = db.QueryRowContext(ctx, `SELECT tags['storage_version'] FROM duckdb_databases() WHERE path LIKE '%'||?`,
		config.Default().DuckDB.File).Scan(&version)
	if err != nil {
		t.Fatal(err)
	}
	if version != readersStorageVersion {
		t.Errorf("billsnap.duckdb's storage version is %q, want %q", version, readersStorageVersion)
	}
}
