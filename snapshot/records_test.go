package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
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

// modTime is a file's modification time, in nanoseconds.
func modTime(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime().UnixNano()
}
