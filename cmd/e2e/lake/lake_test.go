//go:build lake && heavy && !race

// The tests that publish to object storage need the in-process lake,
// which only the heavy tier without -race links (e2etest/drivers.go).

package lake

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/iceberg"
	"github.com/billsnap/billsnap/lake/laketest"
	"github.com/billsnap/billsnap/lake/laketest/icebergspec"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// checkLakeAgainstKey downloads the latest snapshot's files, as its
// manifest lists them, into a Hive tree and checks every table's IDs
// against the answer key.
func checkLakeAgainstKey(t *testing.T, l *objects.Lake, key sandbox.AnswerKey) {
	t.Helper()
	ctx := context.Background()
	latest, err := l.Latest(ctx)
	if err != nil || latest == "" {
		t.Fatalf("latest %q, %v", latest, err)
	}
	ms, err := l.Manifests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	for _, m := range ms {
		if m.Snapshot != latest {
			continue
		}
		for _, f := range m.Files {
			p := filepath.Join(tree, filepath.FromSlash(f.Key))
			os.MkdirAll(filepath.Dir(p), 0o755)
			out, _ := os.Create(p)
			if err := l.Read(ctx, f.Key, out); err != nil {
				t.Fatal(err)
			}
			out.Close()
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, want := range key.Tables {
		var n int
		var h string
		q := "SELECT " + e2etest.IDsHash + " FROM read_parquet('" + filepath.Join(tree, table, "**", "*.parquet") + "', hive_partitioning = true) WHERE snapshot_id = ?"
		if err := db.QueryRow(q, latest).Scan(&n, &h); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != want.Count || h != want.IDsSHA256 {
			t.Errorf("%s in object storage: %d rows, hash %.12s; answer key %d, %.12s", table, n, h, want.Count, want.IDsSHA256)
		}
	}
}

// An export with --parquet-url publishes the snapshot to an S3-compatible
// store: read back through its manifest as a Hive tree, every table equals
// the sandbox's answer key, after the first export and after the last.
// Each table is an Iceberg table whose current snapshot is the latest
// billsnap snapshot: scanned with iceberg-go, its rows equal the answer
// key. Time travel to the previous snapshot, by Iceberg snapshot ID and by
// timestamp, returns the previous rows; with retention 1 the next export
// prunes the lake with the store (one manifest, the latest pointer naming
// it), expires the older Iceberg snapshots and leaves in the lake exactly
// the latest snapshot's files.
func TestIcebergTablesOnObjectStorage(t *testing.T) {
	t.Parallel()
	icebergTablesOnObjectStorage(t, laketest.Serve(t, "warehouse"))
}

// icebergTablesOnObjectStorage is TestIcebergTablesOnObjectStorage's body,
// on the object store at url.
func icebergTablesOnObjectStorage(t *testing.T, url string) {
	t.Helper()
	first := sandboxtest.Start(t, sandbox.Options{Seed: 83, Customers: 30, Planted: 1}, "")
	second := sandboxtest.Start(t, sandbox.Options{Seed: 84, Customers: 45, Planted: 1}, "")
	dir := t.TempDir()
	conf := filepath.Join(dir, "c.yml")
	export := func(srv *sandbox.Server, keep int) {
		t.Helper()
		os.WriteFile(conf, fmt.Appendf(nil, "retention: {keep: %d}\n", keep), 0o644)
		if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--config", conf, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
			t.Fatalf("export: %d %s", code, stderr)
		}
	}
	export(first, 2)
	l, err := objects.Open(context.Background(), url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checkLakeAgainstKey(t, l, first.AnswerKey())
	between := time.Now().UnixMilli()
	export(second, 2)
	tables := icebergTables(t, url, dir)
	if len(tables) != len(first.AnswerKey().Tables) {
		t.Fatalf("%d Iceberg tables, want %d", len(tables), len(first.AnswerKey().Tables))
	}
	for _, tbl := range tables {
		name := tbl.Identifier()[1]
		cur := tbl.CurrentSnapshot()
		if cur == nil || cur.ParentSnapshotID == nil {
			t.Fatalf("%s: current snapshot %+v, want one with a parent", name, cur)
		}
		checkScan(t, tbl.Scan(), name+" current", second.AnswerKey().Tables[name])
		checkScan(t, tbl.Scan(table.WithSnapshotID(*cur.ParentSnapshotID)), name+" by snapshot ID", first.AnswerKey().Tables[name])
		checkScan(t, tbl.Scan(table.WithSnapshotAsOf(between)), name+" by timestamp", first.AnswerKey().Tables[name])
	}
	export(second, 1)
	ms, _ := l.Manifests(context.Background())
	data := dataKeys(t, l)
	latest, _ := l.Latest(context.Background())
	if len(ms) != 1 || len(data) != len(ms[0].Files) || ms[0].Snapshot != latest {
		t.Fatalf("after retention 1: %d manifests, %d data objects (want those of the one kept), latest %q", len(ms), len(data), latest)
	}
	checkLakeAgainstKey(t, l, second.AnswerKey())
	for _, tbl := range icebergTables(t, url, dir) {
		name := tbl.Identifier()[1]
		if n := len(tbl.Metadata().Snapshots()); n != 1 || iceberg.Held(tbl.CurrentSnapshot()) != ms[0].Snapshot {
			t.Errorf("%s after retention 1: %d Iceberg snapshots, current holds %q, want 1 holding %s", name, n, iceberg.Held(tbl.CurrentSnapshot()), ms[0].Snapshot)
		}
		checkScan(t, tbl.Scan(), name+" after retention 1", second.AnswerKey().Tables[name])
		checkBySpec(t, l, url, tbl.MetadataLocation())
	}
	checkTrinoRegisters(t, second, dir, url, l)
}

// checkBySpec reads the table whose metadata is at loc by the Iceberg
// spec alone (icebergspec), through the lake at url, and checks that every
// file it references is there.
func checkBySpec(t *testing.T, l *objects.Lake, url, loc string) {
	t.Helper()
	ctx := context.Background()
	open := func(ctx context.Context, loc string) (io.ReadCloser, error) {
		var b bytes.Buffer
		err := l.Read(ctx, strings.TrimPrefix(loc, lake.Root(url)+"/"), &b)
		return io.NopCloser(&b), err
	}
	tbl, err := icebergspec.Read(ctx, open, loc)
	if err != nil {
		t.Errorf("%s, by the spec: %v", loc, err)
	}
	for _, f := range tbl.Files() {
		if r, err := open(ctx, f); err != nil {
			t.Errorf("%s references %s: %v", loc, f, err)
		} else {
			r.Close()
		}
	}
}

// checkTrinoRegisters checks that lake ddl --engine trino registers every
// table, history tables included, at its current metadata file, which is
// in the lake.
func checkTrinoRegisters(t *testing.T, srv *sandbox.Server, dir, url string, l *objects.Lake) {
	t.Helper()
	code, stdout, stderr := e2etest.CLI(t, srv, "lake", "ddl", "--engine", "trino", "--out", dir, "--parquet-url", url)
	if code != job.ExitOK {
		t.Fatalf("lake ddl: %d %s", code, stderr)
	}
	for _, tbl := range allIcebergTables(t, url, dir) {
		name, meta := tbl.Identifier()[1], tbl.MetadataLocation()
		want := fmt.Sprintf("table_name => '%s', table_location => '%s/%s', metadata_file_name => '%s'", name, lake.Root(url), name, path.Base(meta))
		if !strings.Contains(stdout, want) {
			t.Errorf("lake ddl does not register %s at its current metadata (%s):\n%s", name, want, stdout)
		}
		if err := l.Read(context.Background(), strings.TrimPrefix(meta, lake.Root(url)+"/"), io.Discard); err != nil {
			t.Errorf("%s: the metadata file %s: %v", name, meta, err)
		}
	}
}

// icebergTables are the Iceberg tables of the store at dir's default
// catalog, for the lake at url, but the history tables (historyTables).
func icebergTables(t *testing.T, url, dir string) []*table.Table {
	t.Helper()
	return slices.DeleteFunc(allIcebergTables(t, url, dir), isHistory)
}

// historyTables are the history tables (<table>_history) of the store
// at dir's default catalog, for the lake at url.
func historyTables(t *testing.T, url, dir string) []*table.Table {
	t.Helper()
	all := allIcebergTables(t, url, dir)
	return slices.DeleteFunc(all, func(tbl *table.Table) bool { return !isHistory(tbl) })
}

// isHistory tells whether tbl is a history table.
func isHistory(tbl *table.Table) bool {
	return strings.HasSuffix(tbl.Identifier()[1], lake.HistorySuffix)
}

// dataKeys are the keys of the lake's data objects but the history
// tables' (objects.Lake.DataKeys).
func dataKeys(t *testing.T, l *objects.Lake) []string {
	t.Helper()
	keys, err := l.DataKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(keys, func(k string) bool { return strings.Contains(k, lake.HistorySuffix+"/") })
}

// allIcebergTables are every Iceberg table of the store at dir's default
// catalog, for the lake at url.
func allIcebergTables(t *testing.T, url, dir string) []*table.Table {
	t.Helper()
	ctx := context.Background()
	c, err := iceberg.Open(ctx, lake.DefaultIceberg(), url, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tables, err := c.(*iceberg.Catalog).Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tables
}

// checkScan reads the IDs of a scan and compares their count and digest
// with the answer key's.
func checkScan(t *testing.T, scan *table.Scan, what string, want sandbox.TableKey) {
	t.Helper()
	tbl, err := scan.ToArrowTable(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer tbl.Release()
	var ids []string
	col := tbl.Column(tbl.Schema().FieldIndices("id")[0])
	for _, chunk := range col.Data().Chunks() {
		s := chunk.(interface {
			Len() int
			Value(int) string
		})
		for i := range s.Len() {
			ids = append(ids, s.Value(i))
		}
	}
	slices.Sort(ids)
	if got := (sandbox.TableKey{Count: len(ids), IDsSHA256: sandbox.HashIDs(ids)}); got != want {
		t.Errorf("%s: %d rows, hash %.12s; answer key %d, %.12s", what, got.Count, got.IDsSHA256, want.Count, want.IDsSHA256)
	}
}

// The DuckDB statements of lake ddl --hive, run in DuckDB, read a file://
// lake: every latest_ view equals the answer key, and the files a publish
// cut short left (a snapshot_id directory without a manifest) are not read.
func TestLakeDDLForDuckDBReadsTheLake(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 85, Customers: 25, Planted: 1}, "")
	dir, lakeDir := t.TempDir(), t.TempDir()
	url := "file://" + lakeDir
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
		t.Fatalf("export: %d %s", code, stderr)
	}
	parts, _ := filepath.Glob(filepath.Join(lakeDir, "customers", "data", "snapshot_id=*", "*.parquet"))
	orphan := filepath.Join(lakeDir, "customers", "data", "snapshot_id=2099-01-01T000000Z")
	os.MkdirAll(orphan, 0o755)
	if b, err := os.ReadFile(parts[0]); err != nil || os.WriteFile(filepath.Join(orphan, "part-cut-00000.parquet"), b, 0o644) != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := e2etest.CLI(t, srv, "lake", "ddl", "--engine", "duckdb", "--hive", "--out", dir, "--parquet-url", url)
	if code != job.ExitOK {
		t.Fatalf("lake ddl: %d %s", code, stderr)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stdout); err != nil {
		t.Fatalf("the statements: %v\n%s", err, stdout)
	}
	for table, want := range srv.AnswerKey().Tables {
		var n int
		var h string
		if err := db.QueryRow("SELECT "+e2etest.IDsHash+" FROM billsnap.latest_"+table).Scan(&n, &h); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != want.Count || h != want.IDsSHA256 {
			t.Errorf("latest_%s: %d rows, hash %.12s; answer key %d, %.12s", table, n, h, want.Count, want.IDsSHA256)
		}
	}
	var snapshots int
	if err := db.QueryRow("SELECT count(DISTINCT snapshot_id) FROM billsnap.customers").Scan(&snapshots); err != nil || snapshots != 1 {
		t.Errorf("billsnap.customers holds %d snapshots (%v), want the 1 published, not the one cut short", snapshots, err)
	}
}

// A column the fields key adds between two exports is added to the
// Iceberg table with the next field ID (customers' columns are 1…7), and
// the table needs no name mapping: the current snapshot reads its values
// from the new files, and the previous one, without it, still reads.
func TestAnAddedColumnEvolvesTheIcebergTable(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 86, Customers: 20}, "")
	url := laketest.Serve(t, "evolve")
	dir := t.TempDir()
	conf := filepath.Join(dir, "c.yml")
	for _, yml := range []string{"retention: {keep: 2}\n", "retention: {keep: 2}\nfields: {customers: {culture: {field: Culture, type: string}}}\n"} {
		os.WriteFile(conf, []byte(yml), 0o644)
		if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--config", conf, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
			t.Fatalf("export: %d %s", code, stderr)
		}
	}
	i := slices.IndexFunc(icebergTables(t, url, dir), func(tbl *table.Table) bool { return tbl.Identifier()[1] == "customers" })
	customers := icebergTables(t, url, dir)[i]
	if f, ok := customers.Schema().FindFieldByName("culture"); !ok || f.ID != 8 {
		t.Fatalf("customers' schema has no culture with field ID 8: %s", customers.Schema())
	}
	if m, ok := customers.Properties()[table.DefaultNameMappingKey]; ok {
		t.Errorf("customers has a name mapping, which files with field IDs do not need: %s", m)
	}
	// filled counts a scan's rows and those with a culture (a snapshot from
	// before the column reads with its own schema, which has none).
	filled := func(scan *table.Scan) (rows, n int) {
		tbl, err := scan.ToArrowTable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer tbl.Release()
		if idx := tbl.Schema().FieldIndices("culture"); len(idx) == 1 {
			for _, chunk := range tbl.Column(idx[0]).Data().Chunks() {
				n += chunk.Len() - chunk.NullN()
			}
		}
		return int(tbl.NumRows()), n
	}
	want := srv.AnswerKey().Tables["customers"].Count
	cur := customers.CurrentSnapshot()
	rowsNow, now := filled(customers.Scan())
	rowsBefore, before := filled(customers.Scan(table.WithSnapshotID(*cur.ParentSnapshotID)))
	if rowsNow != want || now != want || rowsBefore != want || before != 0 {
		t.Errorf("culture filled in %d of %d rows now and %d of %d before, want all of %d now and none before", now, rowsNow, before, rowsBefore, want)
	}
}
