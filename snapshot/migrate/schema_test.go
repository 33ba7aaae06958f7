package migrate

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// A state of version 2 is brought up to this version when it is opened
// (its tables of run records become files: the store's
// TestLegacyRunRecordsBecomeFilesAndAreReplaced); a newer one is refused.
func TestTheStateIsUpgraded(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := State(ctx, db); err != nil {
		t.Fatal(err)
	}
	// A state this billsnap migrated is not migrated again, until its
	// record of the statements differs.
	db.Exec("DROP VIEW latest_snapshot")
	if err := State(ctx, db); err != nil || viewExists(db, "latest_snapshot") {
		t.Fatalf("migrated again (%v)", err)
	}
	// A state of before held reconcile's schemas cur and prev, which
	// would make the names of the databases cur and prev ambiguous.
	db.Exec("CREATE SCHEMA cur; CREATE VIEW cur.customers AS SELECT 1 AS x")
	db.Exec("UPDATE billsnap_meta SET value = 'other' WHERE key = 'state_sql'")
	if err := State(ctx, db); err != nil || !viewExists(db, "latest_snapshot") || viewExists(db, "customers") {
		t.Fatalf("statements of another billsnap: not migrated (%v)", err)
	}
	if _, err := db.Exec("UPDATE billsnap_meta SET value = '2' WHERE key = 'schema_version'"); err != nil {
		t.Fatal(err)
	}
	if err := State(ctx, db); err != nil {
		t.Fatalf("upgrading version 2: %v", err)
	}
	var v string
	db.QueryRow("SELECT value FROM billsnap_meta WHERE key = 'schema_version'").Scan(&v)
	if v != SchemaVersion {
		t.Fatalf("after the upgrade: version %s", v)
	}
	db.Exec("UPDATE billsnap_meta SET value = '99' WHERE key = 'schema_version'")
	if err := State(ctx, db); err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("a newer state: %v", err)
	}
}

func viewExists(db *sql.DB, name string) bool {
	var n int
	db.QueryRow("SELECT count(*) FROM duckdb_views() WHERE view_name = ?", name).Scan(&n)
	return n > 0
}
