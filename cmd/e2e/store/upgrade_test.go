package store

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A store written by the billsnap before run records opens, upgrades in
// place (its state copied into a file of small blocks) and reconciles to
// the same findings. testdata/store-v5.tgz was
// made by the tree at 6dbc5c8 (state schema 5: findings, unjudged and
// rechecks are tables of the state), against `billsnap sandbox --seed 3
// --customers 12 --months 3 --now 2026-11-20T12:00:00Z`: export,
// reconcile, export, reconcile, reconcile --period 2026-10, recheck.
func TestAStoreOfTheEarlierFormatUpgrades(t *testing.T) {
	t.Parallel()
	dir := e2etest.Untar(t, filepath.Join("..", "e2etest", "testdata", "store-v5.tgz"))
	legacy := e2etest.LegacyRows(t, filepath.Join(dir, ".billsnap", "state.duckdb"))
	if len(legacy["findings"]) == 0 || len(legacy["rechecks"]) == 0 {
		t.Fatalf("the fixture holds %d findings and %d rechecks", len(legacy["findings"]), len(legacy["rechecks"]))
	}
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 12, Planted: 2}, "")
	if code, _, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--snapshot", "latest"); code != job.ExitMaterial {
		t.Fatalf("reconcile of the upgraded store: exit %d: %s", code, stderr)
	}
	db := e2etest.OpenDB(t, dir)
	for kind, q := range e2etest.RecordQueries {
		got := e2etest.Rows(t, db, q)
		if !reflect.DeepEqual(got, legacy[kind]) {
			t.Errorf("%s after the upgrade and a reconcile: %d rows, %d before\n got %q\nwant %q", kind, len(got), len(legacy[kind]), got, legacy[kind])
		}
	}
	state := e2etest.ReadOnly(t, filepath.Join(dir, ".billsnap", "state.duckdb"))
	var version string
	var tables, blockSize int
	state.QueryRow("SELECT value FROM billsnap_meta WHERE key = 'schema_version'").Scan(&version)
	state.QueryRow("SELECT block_size FROM pragma_database_size() WHERE database_name = 'state'").Scan(&blockSize)
	state.QueryRow(`SELECT count(*) FROM duckdb_tables() WHERE table_name IN ('findings', 'unjudged', 'rechecks')`).Scan(&tables)
	files, _ := filepath.Glob(filepath.Join(dir, ".billsnap", "history", "*", "*.parquet"))
	if version != "8" || tables != 0 || len(files) == 0 || blockSize != 16<<10 {
		t.Errorf("the upgraded state: version %s, %d tables of run records, %d run files, blocks of %d bytes", version, tables, len(files), blockSize)
	}
}
