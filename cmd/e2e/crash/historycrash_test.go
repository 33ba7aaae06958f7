//go:build heavy

package crash

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// A reconcile killed (SIGKILL) after it wrote its run records and before
// the state committed them leaves the findings readers see as they were,
// and the next command that opens the state removes the files the index
// does not list.
func TestAReconcileKilledAfterWritingItsRunRecords(t *testing.T) {
	t.Parallel()
	srv, dir, want := reconciledThenKilled(t, 81, "history.kept")
	// An export writes no run record: what the killed reconcile wrote
	// must be swept, not overwritten by a reconcile that writes the same.
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none"); code != job.ExitOK {
		t.Fatalf("the export after the kill: exit %d %s", code, stderr)
	}
	checkRunFiles(t, dir)
	if got := e2etest.Rows(t, e2etest.OpenDB(t, dir), e2etest.RecordQueries["findings"]); len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("findings after a killed reconcile and an export: %d rows, %d before", len(got), len(want))
	}
}

// A reconcile killed after it staged its run records, outside any
// section of the state: the state and what readers see are as they
// were, and the next section removes the staged files of the process
// that ended.
func TestAReconcileKilledAfterStagingItsRunRecords(t *testing.T) {
	t.Parallel()
	srv, dir, want := reconciledThenKilled(t, 82, "history.staged")
	staging := filepath.Join(dir, ".billsnap", "history", "staging")
	if left, _ := os.ReadDir(staging); len(left) == 0 {
		t.Fatal("the killed reconcile staged no file")
	}
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none"); code != job.ExitOK {
		t.Fatalf("the export after the kill: exit %d %s", code, stderr)
	}
	if left, _ := os.ReadDir(staging); len(left) != 0 {
		t.Errorf("after the next section, %d staged files are left", len(left))
	}
	checkRunFiles(t, dir)
	if got := e2etest.Rows(t, e2etest.OpenDB(t, dir), e2etest.RecordQueries["findings"]); !reflect.DeepEqual(got, want) {
		t.Errorf("findings after a killed reconcile and an export: %d rows, %d before", len(got), len(want))
	}
}

// An upgrade killed after it wrote the run records' files: the next
// command upgrades again, to the same findings, with no file left over.
func TestAnUpgradeKilledAfterWritingTheFiles(t *testing.T) {
	t.Parallel()
	bin := e2etest.BinaryWithTags(t, "crashpoints")
	dir := e2etest.Untar(t, filepath.Join("..", "e2etest", "testdata", "store-v5.tgz"))
	legacy := e2etest.LegacyRows(t, filepath.Join(dir, ".billsnap", "state.duckdb"))
	reconcileKilled(t, bin, dir, "history.upgraded")
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 12, Planted: 2}, "")
	if code, _, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir); code != job.ExitMaterial {
		t.Fatalf("the reconcile after the kill: exit %d %s", code, stderr)
	}
	if got := e2etest.Rows(t, e2etest.OpenDB(t, dir), e2etest.RecordQueries["findings"]); !reflect.DeepEqual(got, legacy["findings"]) {
		t.Errorf("findings after a killed upgrade: %d rows, %d before it", len(got), len(legacy["findings"]))
	}
	checkRunFiles(t, dir)
}

// reconciledThenKilled exports a sandbox of seed, reconciles it, and
// runs a reconcile again killed at crash point at; the findings readers
// see are then as they were (want).
func reconciledThenKilled(t *testing.T, seed uint64, at string) (*sandbox.Server, string, [][]string) {
	t.Helper()
	bin := e2etest.BinaryWithTags(t, "crashpoints")
	srv, dir := e2etest.Exported(t, sandbox.Options{Seed: seed, Customers: 20, Planted: 2})
	if code, _, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir); code != job.ExitMaterial {
		t.Fatalf("reconcile: exit %d %s", code, stderr)
	}
	want := e2etest.Rows(t, e2etest.OpenDB(t, dir), e2etest.RecordQueries["findings"])
	reconcileKilled(t, bin, dir, at)
	if got := e2etest.Rows(t, e2etest.OpenDB(t, dir), e2etest.RecordQueries["findings"]); !reflect.DeepEqual(got, want) {
		t.Errorf("findings readers see after a reconcile killed at %s: %d rows, %d before", at, len(got), len(want))
	}
	return srv, dir, want
}

// reconcileKilled runs bin's reconcile on the store at dir, killed at
// crash point at.
func reconcileKilled(t *testing.T, bin, dir, at string) {
	t.Helper()
	cmd := exec.Command(bin, "reconcile", "--out", dir)
	cmd.Env = append(os.Environ(), "BILLSNAP_OUT=", "BILLSNAP_CRASH_AT="+at)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the reconcile was not killed at %s: %v\n%s", at, err, out)
	}
}

// checkRunFiles checks that the store at dir holds exactly the run files
// its state lists.
func checkRunFiles(t *testing.T, dir string) {
	t.Helper()
	state := e2etest.ReadOnly(t, filepath.Join(dir, ".billsnap", "state.duckdb"))
	var listed int
	if err := state.QueryRow("SELECT count(*) FROM run_files").Scan(&listed); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, kind := range []string{"findings", "unjudged", "rechecks"} {
		names, _ := filepath.Glob(filepath.Join(dir, ".billsnap", "history", kind, "*.*.parquet")) // <snapshot>.<n>.parquet, not the empty file
		files = append(files, names...)
	}
	if len(files) != listed {
		t.Errorf("%d run files for the %d the state lists", len(files), listed)
	}
}
