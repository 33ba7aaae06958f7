//go:build heavy

package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// What grows with the history is written once: each snapshot's manifest
// is a file of its own, which later publishes leave as it is; the views
// show every snapshot's, <table>_of one snapshot's; a run file the index
// does not list (a section that did not commit) is in no view, though a
// reader of the folder meets it; retention deletes a snapshot's files.
func TestRecordsThatGrowAreWrittenOnce(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 49, Customers: 6}, "")
	cfg := testConfig(srv, t.TempDir())
	var ids []string
	for range 3 {
		sum, err := take(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sum.ID)
	}
	first := filepath.Join(cfg.Out, ".billsnap", "history", "snapshot_fields", ids[0]+".parquet")
	written := modTime(t, first)
	if _, err := take(t, cfg); err != nil {
		t.Fatal(err)
	}
	if modTime(t, first) != written {
		t.Error("a later publish wrote the first snapshot's manifest again")
	}
	db := readDB(t, cfg)
	if n := count(t, db, "SELECT count(DISTINCT snapshot_id) FROM snapshot_fields"); n != 4 {
		t.Errorf("snapshot_fields shows %d snapshots", n)
	}
	if n := count(t, db, "SELECT count(*) FROM snapshot_tables_of(?)", ids[1]); n != len(catalog.Tables()) {
		t.Errorf("snapshot_tables_of shows %d tables of one snapshot", n)
	}
	stray := filepath.Join(cfg.Out, "records", "findings", ids[0]+".999.parquet")
	row := strings.TrimSuffix(runrec.EmptyRelation(runrec.Findings), " WHERE false") // one row of NULLs
	q := fmt.Sprintf("COPY (SELECT * REPLACE (%s AS snapshot_id, 'stray' AS rule) FROM (%s)) TO %s (FORMAT parquet)", state.SQLString(ids[0]), row, state.SQLString(stray))
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT count(*) FROM read_parquet(?) WHERE rule = 'stray'", filepath.Join(cfg.Out, "records", "findings", "*.parquet")); n != 1 {
		t.Fatalf("the folder holds %d stray findings", n)
	}
	if n := count(t, db, "SELECT count(*) FROM findings WHERE rule = 'stray'"); n != 0 {
		t.Error("the findings view shows a run file the index does not list")
	}
	s := openStore(t, cfg)
	defer s.Close()
	if _, err := s.Prune(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("the manifest of a pruned snapshot: %v", err)
	}
}
