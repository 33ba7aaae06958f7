//go:build heavy

package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// Retention keeps the newest N complete snapshots and everything newer
// than the oldest of them; rows and Parquet go together.
func TestPruneKeepsN(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 45, Customers: 20}, "")
	cfg := testConfig(srv, t.TempDir())
	var ids []string
	for range 4 {
		sum, err := take(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sum.ID)
	}
	drifting := sandboxtest.Start(t, sandbox.Options{Seed: 45, Customers: 20}, "totalcount=Contacts")
	cfgInc := cfg
	cfgInc.BaseURL, cfgInc.FrontURL = drifting.BaseURL(), drifting.FrontURL()
	inc, err := take(t, cfgInc)
	if err != nil || inc.Status != StatusIncomplete {
		t.Fatalf("%+v %v", inc, err)
	}
	s := openStore(t, cfg)
	defer s.Close()
	pruned, err := s.Prune(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pruned, ids[:2]) {
		t.Fatalf("pruned %v, want %v", pruned, ids[:2])
	}
	left := []string{}
	db := readDB(t, cfg)
	rows, _ := db.Query("SELECT id FROM snapshots ORDER BY started")
	for rows.Next() {
		var id string
		rows.Scan(&id)
		left = append(left, id)
	}
	rows.Close()
	if want := append(slices.Clone(ids[2:]), inc.ID); !slices.Equal(left, want) {
		t.Errorf("snapshots left %v, want %v", left, want)
	}
	for _, id := range ids {
		_, err := os.Stat(filepath.Join(cfg.Out, "parquet", "customers", "snapshot_id="+id))
		if gone := os.IsNotExist(err); gone != slices.Contains(pruned, id) {
			t.Errorf("partition of %s: gone %v", id, gone)
		}
		if n := count(t, db, "SELECT count(*) FROM customers WHERE snapshot_id = ?", id); (n == 0) != slices.Contains(pruned, id) {
			t.Errorf("customers of %s: %d rows", id, n)
		}
	}
	if n := count(t, db, "SELECT count(*) FROM latest_snapshot WHERE id = ?", ids[3]); n != 1 {
		t.Error("the latest complete snapshot is not latest any more")
	}
	if again, _ := s.Prune(context.Background(), 1); !slices.Equal(again, []string{ids[2]}) {
		t.Errorf("keep 1 prunes %v", again)
	}
}
