//go:build heavy

package snapshot

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// A snapshot recorded before repairs of text were counted, whose
// snapshot_fields file has no repaired column, still reads: Fields gives
// its fields with Repaired 0, and the view over every snapshot's files
// shows it beside a snapshot whose file has the column.
func TestFieldsRecordedBeforeRepairsStillRead(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 49, Customers: 6}, "")
	cfg := testConfig(srv, t.TempDir())
	old, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	withoutRepaired(t, filepath.Join(cfg.Out, ".billsnap", "history", "snapshot_fields", old.ID+".parquet"))
	if _, err := take(t, cfg); err != nil {
		t.Fatal(err)
	}
	db := readDB(t, cfg)
	fields, err := readmodel.Fields(context.Background(), db, old.ID)
	if err != nil || len(fields) != len(old.Fields) {
		t.Fatalf("the old snapshot's fields: %d, %v; want %d", len(fields), err, len(old.Fields))
	}
	for _, f := range fields {
		if f.Repaired != 0 || f.Table == "" || f.Field == "" {
			t.Fatalf("read %+v", f)
		}
	}
	if n := count(t, db, "SELECT count(DISTINCT snapshot_id) FROM snapshot_fields WHERE repaired IS NULL OR repaired = 0"); n != 2 {
		t.Errorf("snapshot_fields shows %d snapshots, want 2", n)
	}
}
