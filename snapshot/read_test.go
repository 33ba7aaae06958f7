package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// Query refuses several statements before any runs, and names a statement
// that does not prepare as the caller's.
func TestQueryRunsOneStatement(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var se *StatementError
	if _, err := Query(ctx, db, "CREATE TABLE t (x INT); SELECT 1"); !errors.Is(err, ErrNotOneStatement) || !errors.As(err, &se) {
		t.Errorf("two statements: %v", err)
	}
	if _, err := db.ExecContext(ctx, "SELECT * FROM t"); err == nil {
		t.Error("the first of two refused statements ran")
	}
	for _, bad := range []string{"", "selec 1", "SELECT * FROM nope"} {
		if _, err := Query(ctx, db, bad); !errors.As(err, &se) {
			t.Errorf("%q: %v, want a StatementError", bad, err)
		}
	}
	rows, err := Query(ctx, db, "SELECT 41 + 1;")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int
	if !rows.Next() || rows.Scan(&n) != nil || n != 42 {
		t.Errorf("one statement with a semicolon: %d, %v", n, rows.Err())
	}
}

// A process that holds the read model open, as billsnap serve and the
// scheduler do, gets the new one when it opens the path after a publish,
// and keeps the old one where it holds it.
func TestOpenReadAfterAPublishWhileTheOldIsHeld(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 5}, "")
	cfg := testConfig(srv, t.TempDir())
	latest := func(db *sql.DB) string {
		t.Helper()
		var id string
		if err := db.QueryRow("SELECT id FROM latest_snapshot").Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	first, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	held := readDB(t, cfg)
	if got := latest(held); got != first.ID {
		t.Fatalf("latest %s, want %s", got, first.ID)
	}
	second, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := latest(readDB(t, cfg)); got != second.ID {
		t.Errorf("opened after the publish: latest %s, want the new %s", got, second.ID)
	}
	if got := latest(held); got != first.ID {
		t.Errorf("held through the publish: latest %s, want %s", got, first.ID)
	}
}
