//go:build heavy

package snapshot

import (
	"database/sql"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A process that holds the read model open, as billsnap serve and the
// scheduler do, gets the new one when it opens the path after a publish,
// and keeps the old one where it holds it.
func TestOpenReadAfterAPublishWhileTheOldIsHeld(t *testing.T) {
	t.Parallel()
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
