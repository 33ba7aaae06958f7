package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/ingest"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// walkInto walks every collection of the sandbox into run, without
// publishing.
func walkInto(t *testing.T, cfg testCfg, run *Run) {
	t.Helper()
	if err := ingest.Walk(context.Background(), walker(t, cfg), collections(t, cfg), run); err != nil {
		t.Fatal(err)
	}
}

func TestOpenFailsARunInterruptedWhileWalking(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 41, Customers: 80}, "")
	cfg := testConfig(srv, t.TempDir())
	s := openStore(t, cfg)
	run, err := s.Begin(context.Background(), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	walkInto(t, cfg, run)
	run.loader.Wait()
	run.closeDB()
	s.Close() // the process dies here: staging written, rows loaded, nothing published
	s = openStore(t, cfg)
	defer s.Close()
	var status, msg string
	inState(t, s, func(db *sql.DB) {
		db.QueryRow("SELECT status, error FROM snapshots WHERE id = ?", run.ID).Scan(&status, &msg)
	})
	if status != StatusFailed || !strings.Contains(msg, "interrupted") {
		t.Errorf("interrupted run: status %q, error %q", status, msg)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, ".staging")); !os.IsNotExist(err) {
		t.Error("staging was not cleaned up")
	}
	if n := count(t, readDB(t, cfg), "SELECT count(*) FROM latest_customers"); n != 0 {
		t.Errorf("the interrupted snapshot left %d customer rows where readers look", n)
	}
}

func TestOpenRollsForwardARunInterruptedWhilePublishing(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 42, Customers: 80}, "")
	cfg := testConfig(srv, t.TempDir())
	s := openStore(t, cfg)
	run, err := s.Begin(context.Background(), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	walkInto(t, cfg, run)
	if err := run.loader.Wait(); err != nil {
		t.Fatal(err)
	}
	var stats []manifest.TableStats
	var sums []tableFile
	for _, tb := range catalog.Tables() {
		st, err := run.verified(tb)
		if err != nil {
			t.Fatal(err)
		}
		stats = append(stats, st)
		if sums, err = run.fileSums(tb.Name, sums); err != nil {
			t.Fatal(err)
		}
	}
	run.closeDB()
	inState(t, s, func(db *sql.DB) {
		err := tx(context.Background(), db, func(tx *sql.Tx) error {
			return run.manifest(context.Background(), tx, stats, sums, run.Fields(), StatusPublishing)
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	// The process dies while the snapshot's partitions go into the
	// Parquet tree: two of the fifteen tables are in it.
	var moved []string
	for _, table := range []string{"customers", "invoices"} {
		moved = append(moved, filepath.Join(cfg.Out, ".staging", run.ID, table))
	}
	if err := s.tree.Add(run.ID, moved); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openStore(t, cfg)
	defer s.Close()
	db := readDB(t, cfg)
	if got := statuses(t, db); len(got) != 1 || got[0] != StatusComplete {
		t.Fatalf("statuses after recovery %v", got)
	}
	if gens, _ := filepath.Glob(filepath.Join(cfg.Out, ".parquet-gen", "[0-9]*")); len(gens) != 1 {
		t.Errorf("generations of the Parquet tree after recovery: %v", gens)
	}
	key := srv.AnswerKey()
	for _, tb := range catalog.Tables() {
		q := "SELECT count(*) FROM read_parquet('" + filepath.Join(s.partitionDir(tb.Name, run.ID), "*.parquet") + "')"
		if n := count(t, db, q); n != key.Tables[tb.Name].Count {
			t.Errorf("%s: %d Parquet rows after roll-forward, want %d", tb.Name, n, key.Tables[tb.Name].Count)
		}
		if n := count(t, db, "SELECT count(*) FROM latest_"+tb.Name); n != key.Tables[tb.Name].Count {
			t.Errorf("latest_%s has %d rows", tb.Name, n)
		}
	}
}

// A prune cut short after it committed leaves the pruned snapshots'
// partitions and manifest files, with its marker: the next Open removes
// them, and leaves the complete snapshot's.
func TestOpenRemovesWhatAPruneCutShortLeft(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 43, Customers: 20}, "")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const pruned = "2001-01-01T000000Z"
	stray := filepath.Join(cfg.Out, "parquet", "customers", "snapshot_id="+pruned)
	os.MkdirAll(stray, 0o755)
	os.WriteFile(filepath.Join(stray, "part-00000.parquet"), []byte("junk"), 0o644)
	manifest := filepath.Join(cfg.Out, ".billsnap", "history", "snapshot_fields", pruned+".parquet")
	os.WriteFile(manifest, []byte("junk"), 0o644)
	os.WriteFile(filepath.Join(cfg.Out, ".billsnap", "prune.pending"), nil, 0o644)
	openStore(t, cfg).Close()
	for _, left := range []string{stray, manifest, filepath.Join(cfg.Out, ".billsnap", "prune.pending")} {
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Errorf("%s survived Open: %v", left, err)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, ".billsnap", "history", "snapshot_fields", sum.ID+".parquet")); err != nil {
		t.Errorf("the complete snapshot's manifest is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, "parquet", "customers", "snapshot_id="+sum.ID)); err != nil {
		t.Errorf("the complete snapshot's partition is gone: %v", err)
	}
}

func TestOneWriterAtATime(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 44, Customers: 5}, "")
	cfg := testConfig(srv, t.TempDir())
	s := openStore(t, cfg)
	defer s.Close()
	cfg.LockWait = 0
	_, err := Open(context.Background(), cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err == nil || !strings.Contains(err.Error(), "held by another billsnap (pid ") {
		t.Errorf("second Open: %v", err)
	}
}

// A store written when the partition key was "snapshot" is migrated when
// opened: the partitions are renamed to snapshot_id in one change of the
// tree, and their files are the same files.
func TestOpenRenamesTheOldPartitionKey(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 45, Customers: 10}, "")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// As an older billsnap left it: a plain directory, the old key.
	plainTree(t, cfg.Out)
	parts, _ := filepath.Glob(filepath.Join(cfg.Out, "parquet", "*", "snapshot="+sum.ID))
	before, _ := os.Stat(filepath.Join(cfg.Out, "parquet", "customers", "snapshot="+sum.ID, "part-00000.parquet"))
	s := openStore(t, cfg)
	defer s.Close()
	after, err := os.Stat(filepath.Join(cfg.Out, "parquet", "customers", "snapshot_id="+sum.ID, "part-00000.parquet"))
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("after Open: %v (same file: %v)", err, err == nil && os.SameFile(before, after))
	}
	if old, _ := filepath.Glob(filepath.Join(cfg.Out, "parquet", "*", "snapshot=*")); len(old) != 0 || len(parts) != 15 {
		t.Errorf("old partitions left: %v (of %d)", old, len(parts))
	}
	var n int
	q := fmt.Sprintf("SELECT count(DISTINCT snapshot_id) FROM read_parquet('%s', hive_partitioning = true) WHERE snapshot_id = '%s'",
		filepath.Join(cfg.Out, "parquet", "*", "*", "*.parquet"), sum.ID)
	if err := readDB(t, cfg).QueryRow(q).Scan(&n); err != nil || n != 1 {
		t.Errorf("a Hive reader filtering on snapshot_id: %d, %v", n, err)
	}
}

// The read model's views of every snapshot show only the snapshots the
// records list as complete: a snapshot whose partitions are part-way into
// the tree (a run killed there, or one publishing now) is not in them,
// though a reader of the tree's files meets its partition.
func TestTheViewsShowNoSnapshotPartWayIntoTheTree(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 44, Customers: 10}, "")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const partWay = "2099-01-01T000000Z"
	src := filepath.Join(cfg.Out, "parquet", "customers", "snapshot_id="+sum.ID)
	dst := filepath.Join(cfg.Out, "parquet", "customers", "snapshot_id="+partWay)
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	db := readDB(t, cfg)
	want := srv.AnswerKey().Tables["customers"].Count
	if n := count(t, db, "SELECT count(*) FROM read_parquet(?)", filepath.Join(dst, "*.parquet")); n != want {
		t.Fatalf("the copied partition has %d rows", n)
	}
	if n := count(t, db, "SELECT count(*) FROM customers"); n != want {
		t.Errorf("the view of every snapshot shows %d customers, want the complete snapshot's %d", n, want)
	}
}
