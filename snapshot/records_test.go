package snapshot

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A change of the state that leaves the latest snapshot where it was (a
// reconciliation's findings) is published as records: the read model's
// file is not written again, its views show the change, and one
// generation of the records is left.
func TestAChangePublishesRecordsNotTheModel(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 47, Customers: 20}, "")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	public := filepath.Join(cfg.Out, "billsnap.duckdb")
	before := inode(t, public)
	s := openStore(t, cfg)
	err = s.Change(context.Background(), func(db *sql.DB) error {
		_, err := db.Exec("INSERT INTO reconciliations VALUES (?, '', now(), now(), 3, true)", sum.ID)
		return err
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if inode(t, public) != before {
		t.Error("the read model's file was written again for a change of the records")
	}
	db := readDB(t, cfg)
	if n := count(t, db, "SELECT count(*) FROM reconciliations WHERE snapshot_id = ? AND findings = 3", sum.ID); n != 1 {
		t.Errorf("the read model's reconciliations show %d rows of the change", n)
	}
	if gens, _ := filepath.Glob(filepath.Join(cfg.Out, ".records-gen", "*")); len(gens) != 1 {
		t.Errorf("generations of the records: %v", gens)
	}
}

// A master cut short (a power cut after its rename: it is not synced) is
// built anew from the Parquet at the next publish, and the public file
// holds the latest snapshot whole again.
func TestAMasterCutShortIsBuiltAnew(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 48, Customers: 20}, "")
	cfg := testConfig(srv, t.TempDir())
	if _, err := take(t, cfg); err != nil {
		t.Fatal(err)
	}
	master := filepath.Join(cfg.Out, ".billsnap", "model.duckdb")
	fi, err := os.Stat(master)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(master, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, cfg)
	err = s.Change(context.Background(), func(*sql.DB) error { return nil })
	s.Close()
	if err != nil {
		t.Fatalf("the publish after the master was cut short: %v", err)
	}
	db := readDB(t, cfg)
	want := srv.AnswerKey().Tables["customers"].Count
	if n := count(t, db, "SELECT count(*) FROM latest_customers"); n != want {
		t.Errorf("latest_customers holds %d rows; the answer key %d", n, want)
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}
