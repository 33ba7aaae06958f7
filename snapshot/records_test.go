package snapshot

import (
	"context"
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
	err = s.UpdateAndPublish(context.Background(), func(sec *Section) error {
		db := sec.DB()
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

// A read model whose model.json is torn (a power cut after the public
// file's rename, before model.json was whole) is built anew from the
// Parquet at the next publish, and the public file holds the latest
// snapshot whole again; the master a billsnap before kept is removed.
func TestAModelOfUnknownContentIsBuiltAnew(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 48, Customers: 20}, "")
	cfg := testConfig(srv, t.TempDir())
	if _, err := take(t, cfg); err != nil {
		t.Fatal(err)
	}
	info := filepath.Join(cfg.Out, ".billsnap", "model.json")
	if err := os.WriteFile(info, []byte(`{"latest": "`), 0o644); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(cfg.Out, ".billsnap", "model.duckdb")
	if err := os.WriteFile(old, []byte("an old master"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := inode(t, filepath.Join(cfg.Out, "billsnap.duckdb"))
	s := openStore(t, cfg)
	err := s.UpdateAndPublish(context.Background(), func(*Section) error { return nil })
	s.Close()
	if err != nil {
		t.Fatalf("the publish after model.json was torn: %v", err)
	}
	if inode(t, filepath.Join(cfg.Out, "billsnap.duckdb")) == before {
		t.Error("the read model was not built anew")
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("the master a billsnap before kept is still there")
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

// modTime is a file's modification time, in nanoseconds.
func modTime(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime().UnixNano()
}
