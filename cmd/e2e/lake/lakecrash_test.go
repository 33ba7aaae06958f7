//go:build lake && heavy

package lake

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/iceberg"
	"github.com/billsnap/billsnap/lake/laketest"
	"github.com/billsnap/billsnap/lake/laketest/icebergspec"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// killedMidPublish runs an export of a sandbox of seed to a new lake,
// SIGKILLed at the crashpoint at, and gives the sandbox, the lake's
// parquet.url and the store.
func killedMidPublish(t *testing.T, seed uint64, at string) (*sandbox.Server, string, string) {
	t.Helper()
	bin := e2etest.BinaryWithTags(t, "crashpoints")
	e2etest.LakeBinaryBeside(t, bin, "crashpoints")
	srv := sandboxtest.Start(t, sandbox.Options{Seed: seed, Customers: 30}, "")
	url := laketest.Start(t, "billing")
	dir := t.TempDir()
	cmd := e2etest.ChildExport(bin, srv, dir, "BILLSNAP_CRASH_AT="+at)
	cmd.Args = append(cmd.Args, "--parquet-url", url)
	if out, err := cmd.CombinedOutput(); !lakeKilled(err, out) {
		t.Fatalf("the export's lake program was not killed: %v\n%s", err, out)
	}
	return srv, url, dir
}

// An export killed (SIGKILL) in the middle of publishing to object
// storage, after some data files and before the manifest, leaves no
// manifest of the half snapshot, so it does not exist there; the next
// export publishes it and its own snapshot, and removes the files the
// killed one left.
func TestAnExportKilledMidPublishToObjectStorage(t *testing.T) {
	srv, url, dir := killedMidPublish(t, 83, "lake.data#3")
	ctx := context.Background()
	l, err := objects.Open(ctx, url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ms, _ := l.Manifests(ctx)
	latest, _ := l.Latest(ctx)
	keys := dataKeys(t, l)
	// Uploads run a few at once: those under way at the kill may be whole.
	if len(ms) != 0 || latest != "" || len(keys) < 3 || len(keys) >= 15 {
		t.Fatalf("after the kill: %d manifests, latest %q, %d data files (want 0, none, 3 to 14)", len(ms), latest, len(keys))
	}
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
		t.Fatalf("the next export: %d %s", code, stderr)
	}
	ms, _ = l.Manifests(ctx)
	keys = dataKeys(t, l)
	var listed []string
	for _, m := range ms {
		for _, f := range m.Files {
			listed = append(listed, f.Key)
		}
	}
	slices.Sort(listed)
	if len(ms) != 2 || !slices.Equal(keys, listed) {
		t.Fatalf("after the next export: %d manifests (want 2: the killed export's snapshot and the new one); %d data files, %d listed", len(ms), len(keys), len(listed))
	}
	checkLakeAgainstKey(t, l, srv.AnswerKey())
}

// An export killed while it commits its snapshot to the Iceberg tables
// (after the 5th of 15) leaves some tables holding it and the others the
// snapshot before; the next export commits it to the others, then its own
// snapshot to all, so every table holds the new one over the killed one.
func TestAnExportKilledMidIcebergCommit(t *testing.T) {
	srv, url, dir := killedMidPublish(t, 84, "iceberg.table#5")
	// Tables are committed a few at once: those under way at the kill
	// may be created, or committed, too.
	if n := len(icebergTables(t, url, dir)); n < 5 || n >= 15 {
		t.Fatalf("after the kill: %d Iceberg tables, want the 5 committed and at most a few more", n)
	}
	checkCommitCompleted(t, srv, url, dir)
}

// An export killed (SIGKILL) right after creating an Iceberg table, before
// its first commit, leaves a table without a snapshot: the next export
// commits both snapshots to it, and every table's metadata, read by the
// spec, references only files that are there.
func TestAnExportKilledAfterCreatingAnIcebergTable(t *testing.T) {
	srv, url, dir := killedMidPublish(t, 87, "iceberg.created#6")
	tables := icebergTables(t, url, dir)
	empty := slices.IndexFunc(tables, func(tbl *table.Table) bool { return tbl.CurrentSnapshot() == nil })
	if len(tables) < 6 || len(tables) >= 15 || empty < 0 {
		t.Fatalf("after the kill: %d Iceberg tables (one without a snapshot: %v), want 6 or a few more, one without", len(tables), empty >= 0)
	}
	checkCommitCompleted(t, srv, url, dir)
}

// An export killed (SIGKILL) right after it set the schema of a table to
// which the fields key added a column, before the table's commit: the next
// export commits both snapshots, and the column has its field ID.
func TestAnExportKilledAfterSettingAnIcebergSchema(t *testing.T) {
	bin, srv, url, dir := exportedToALake(t, 88)
	conf := filepath.Join(dir, "fields.yml")
	os.WriteFile(conf, []byte("fields: {customers: {culture: {field: Culture, type: string}}}\n"), 0o644)
	cmd := e2etest.ChildExport(bin, srv, dir, "BILLSNAP_CRASH_AT=iceberg.schema#1")
	cmd.Args = append(cmd.Args, "--parquet-url", url, "--config", conf)
	if out, err := cmd.CombinedOutput(); !lakeKilled(err, out) {
		t.Fatalf("the export's lake program was not killed: %v\n%s", err, out)
	}
	checkCommitCompleted(t, srv, url, dir, "--config", conf)
	for _, tbl := range icebergTables(t, url, dir) {
		if f, ok := tbl.Schema().FindFieldByName("culture"); tbl.Identifier()[1] == "customers" && (!ok || f.ID != 8) {
			t.Errorf("customers' schema: %s, want culture with field ID 8", tbl.Schema())
		}
	}
}

// lakeKilled tells whether an export failed (exit 1) because its lake
// program died by SIGKILL, as out, what it printed, says.
func lakeKilled(err error, out []byte) bool {
	ee, ok := err.(*exec.ExitError)
	return ok && ee.ExitCode() == job.ExitFailure && strings.Contains(string(out), lakeprogram.Name+" publish: signal: killed")
}

// checkCommitCompleted runs the export after the one killed (with args),
// and checks that every table holds its snapshot over the killed one's,
// equal to the answer key, and references only files that are there.
func checkCommitCompleted(t *testing.T, srv *sandbox.Server, url, dir string, args ...string) {
	t.Helper()
	args = append([]string{"export", "--out", dir, "--progress", "none", "--parquet-url", url}, args...)
	if code, _, stderr := e2etest.CLI(t, srv, args...); code != job.ExitOK {
		t.Fatalf("the next export: %d %s", code, stderr)
	}
	ctx := context.Background()
	l, err := objects.Open(ctx, url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ms, _ := l.Manifests(ctx)
	tables := icebergTables(t, url, dir)
	if len(ms) < 2 || len(tables) != len(srv.AnswerKey().Tables) {
		t.Fatalf("after the next export: %d manifests, %d tables", len(ms), len(tables))
	}
	ms = ms[len(ms)-2:]
	for _, tbl := range tables {
		name := tbl.Identifier()[1]
		cur := tbl.CurrentSnapshot()
		if cur == nil || cur.ParentSnapshotID == nil {
			t.Errorf("%s: current snapshot %+v, want one over the killed export's", name, cur)
			continue
		}
		parent := tbl.SnapshotByID(*cur.ParentSnapshotID)
		if iceberg.Held(cur) != ms[1].Snapshot || parent == nil || iceberg.Held(parent) != ms[0].Snapshot {
			t.Errorf("%s holds %q over %v, want %s over %s", name, iceberg.Held(cur), parent, ms[1].Snapshot, ms[0].Snapshot)
		}
		checkScan(t, tbl.Scan(), name, srv.AnswerKey().Tables[name])
		checkBySpec(t, l, url, tbl.MetadataLocation())
	}
}

// An export killed (SIGKILL) while it commits history to the lake, after
// one history table's commit and another's files were uploaded: the
// first holds the killed export's snapshot, the others the one before;
// the next export commits every history table to its own snapshot,
// customers_history then holds exactly the store's versions, and the
// files the killed commit left are pruned: every history data object is
// one the history tables reference.
func TestAnExportKilledMidLakeHistoryCommit(t *testing.T) {
	bin, srv, url, dir := exportedToALake(t, 90)
	first := historyHeld(t, url, dir)
	if len(first) != 1 {
		t.Fatalf("after the first export the history tables hold %v, want its snapshot", first)
	}
	change(t, srv, srv.Dataset().Customers[0].ID, func(c *sandbox.Customer) { c.Email = "new-" + c.Email })
	cmd := e2etest.ChildExport(bin, srv, dir, "BILLSNAP_CRASH_AT=lake.history#2")
	cmd.Args = append(cmd.Args, "--parquet-url", url)
	if out, err := cmd.CombinedOutput(); !lakeKilled(err, out) {
		t.Fatalf("the export's lake program was not killed: %v\n%s", err, out)
	}
	held := historyHeld(t, url, dir)
	others := 0
	for id := range first {
		others = held[id]
	}
	if len(held) != 2 || others != len(srv.AnswerKey().Tables)-1 {
		t.Fatalf("after the kill the history tables hold %v, want one the killed export's snapshot and the others %v", held, first)
	}
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
		t.Fatalf("the next export: %d %s", code, stderr)
	}
	checkHistoryInLake(t, srv, dir, url, 1)
	checkHistoryReferenced(t, url, dir)
}

// historyHeld counts the history tables by the snapshot each holds.
func historyHeld(t *testing.T, url, dir string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, tbl := range historyTables(t, url, dir) {
		out[iceberg.Held(tbl.CurrentSnapshot())]++
	}
	return out
}

// checkHistoryReferenced checks that every data object of the history
// tables in the lake at url is one their metadata references.
func checkHistoryReferenced(t *testing.T, url, dir string) {
	t.Helper()
	ctx := context.Background()
	l, err := objects.Open(ctx, url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	refs := map[string]bool{}
	for _, tbl := range historyTables(t, url, dir) {
		spec, err := icebergspec.Read(ctx, func(ctx context.Context, loc string) (io.ReadCloser, error) {
			var b bytes.Buffer
			err := l.Read(ctx, strings.TrimPrefix(loc, lake.Root(url)+"/"), &b)
			return io.NopCloser(&b), err
		}, tbl.MetadataLocation())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range spec.Files() {
			refs[f] = true
		}
	}
	keys, _ := l.DataKeys(ctx)
	n := 0
	for _, k := range keys {
		if strings.Contains(k, lake.HistorySuffix+"/") {
			n++
			if !refs[lake.FileURL(lake.Root(url), k)] {
				t.Errorf("the lake holds %s, which no history table references", k)
			}
		}
	}
	if n == 0 {
		t.Error("the lake holds no history data object")
	}
}

// exportedToALake builds billsnap and its lake's program with crash
// points, starts a sandbox of seed (25 customers) and a lake, and takes
// a first export into a new store on it: where a crash test starts.
func exportedToALake(t *testing.T, seed uint64) (bin string, srv *sandbox.Server, url, dir string) {
	t.Helper()
	bin = e2etest.BinaryWithTags(t, "crashpoints")
	e2etest.LakeBinaryBeside(t, bin, "crashpoints")
	srv = sandboxtest.Start(t, sandbox.Options{Seed: seed, Customers: 25}, "")
	url, dir = laketest.Start(t, "billing"), t.TempDir()
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
		t.Fatalf("the first export: %d %s", code, stderr)
	}
	return bin, srv, url, dir
}
