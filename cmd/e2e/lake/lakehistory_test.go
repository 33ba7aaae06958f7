//go:build lake && heavy && !race

package lake

import (
	"bytes"
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
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

// The lake's customers_history, an Iceberg table, holds exactly the
// versions the store's customers_history holds, read by iceberg-go and,
// its files listed by the spec reader, by DuckDB: after a first export
// (every version current), after a second with known changes (two
// updates, a delete, an insert: three versions closed), and after a third
// with retention.keep 1 and one more update, which prunes every earlier
// snapshot but no version, and after a fourth, whose step packs the
// store's files of history. Every table of the store has its history
// table, holding the latest snapshot.
func TestHistoryTablesInTheLake(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 88, Customers: 20}, "")
	url := laketest.Serve(t, "history")
	dir := t.TempDir()
	conf := filepath.Join(dir, "c.yml")
	export := func(keep int) {
		t.Helper()
		os.WriteFile(conf, fmt.Appendf(nil, "retention: {keep: %d}\n", keep), 0o644)
		if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--config", conf, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
			t.Fatalf("export: %d %s", code, stderr)
		}
	}
	export(0)
	checkHistoryInLake(t, srv, dir, url, 0)
	cs := srv.Dataset().Customers
	change(t, srv, cs[0].ID, func(c *sandbox.Customer) { c.Email = "new-" + c.Email })
	change(t, srv, cs[1].ID, func(c *sandbox.Customer) { c.FullName += " Jr" })
	if err := srv.Remove("Customers", cs[2].ID); err != nil {
		t.Fatal(err)
	}
	if err := srv.Add("Customers", &sandbox.Customer{ID: "00000000-0000-4000-8000-0000000000ee", FullName: "Eve", CurrencyCode: "USD", Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	export(0)
	checkHistoryInLake(t, srv, dir, url, 3)
	change(t, srv, cs[0].ID, func(c *sandbox.Customer) { c.Email = "again-" + c.Email })
	export(1)
	checkHistoryInLake(t, srv, dir, url, 4)
	for _, tbl := range historyTables(t, url, dir) {
		if n := len(tbl.Metadata().Snapshots()); n != 1 {
			t.Errorf("%s after retention 1: %d Iceberg snapshots, want 1", tbl.Identifier()[1], n)
		}
	}
	change(t, srv, cs[1].ID, func(c *sandbox.Customer) { c.FullName += " II" })
	export(1) // the fourth step: the store packs the four steps' files
	if packs, _ := filepath.Glob(filepath.Join(dir, ".billsnap", "history", "versions", "customers", "pack-*.parquet")); len(packs) != 1 {
		t.Errorf("the customers' versions are in %d packs after four steps, want one", len(packs))
	}
	checkHistoryInLake(t, srv, dir, url, 5)
}

// change changes the customer id of srv with fn.
func change(t *testing.T, srv *sandbox.Server, id string, fn func(*sandbox.Customer)) {
	t.Helper()
	if err := srv.Change("Customers", id, func(r any) { fn(r.(*sandbox.Customer)) }); err != nil {
		t.Fatal(err)
	}
}

// checkHistoryInLake checks that the lake at url's customers_history, by
// iceberg-go and by the spec reader, holds the versions the store at
// dir's customers_history holds, closed of them closed; and that every
// table has its history table, holding the lake's latest snapshot.
func checkHistoryInLake(t *testing.T, srv *sandbox.Server, dir, url string, closed int) {
	t.Helper()
	want := localVersions(t, dir)
	if n := len(slices.DeleteFunc(slices.Clone(want), func(v string) bool { return strings.Contains(v, "|open|") })); n != closed {
		t.Fatalf("the store's customers_history has %d versions closed, want %d:\n%s", n, closed, strings.Join(want, "\n"))
	}
	l, err := objects.Open(context.Background(), url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	latest, _ := l.Latest(context.Background())
	hist := historyTables(t, url, dir)
	if len(hist) != len(srv.AnswerKey().Tables) {
		t.Errorf("%d history tables, want one a table, %d", len(hist), len(srv.AnswerKey().Tables))
	}
	for _, tbl := range hist {
		if held := iceberg.Held(tbl.CurrentSnapshot()); held != latest {
			t.Errorf("%s holds %q, want the latest snapshot %s", tbl.Identifier()[1], held, latest)
		}
		if tbl.Identifier()[1] != "customers_history" {
			continue
		}
		if got := scannedVersions(t, tbl.Scan()); !slices.Equal(got, want) {
			t.Errorf("customers_history by iceberg-go:\n%s\nwant the store's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		checkBySpec(t, l, url, tbl.MetadataLocation())
		if got := specVersions(t, l, url, tbl.MetadataLocation()); !slices.Equal(got, want) {
			t.Errorf("customers_history by the spec reader:\n%s\nwant the store's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// versionSQL is a version as the history tests compare them, from a
// relation with history's columns: its ID, where it starts and ends (or
// open), and a digest of the record as sent.
const versionSQL = `SELECT id || '|' || snapshot_from || '|' || coalesce(snapshot_to, 'open') || '|' || epoch_us(valid_from) || '|' ||
	coalesce(CAST(epoch_us(valid_to) AS VARCHAR), 'open') || '|' || md5(CAST(_raw AS VARCHAR)) AS v FROM %s ORDER BY v`

// localVersions are the store at dir's customers_history versions.
func localVersions(t *testing.T, dir string) []string {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, "billsnap.duckdb")+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return versionsOf(t, db, fmt.Sprintf(versionSQL, "customers_history"))
}

// versionsOf are the rows of q, one string each.
func versionsOf(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// specVersions are the versions of the data files of the current
// snapshot of the table whose metadata is at loc, as the spec reader
// lists them, downloaded and read by DuckDB.
func specVersions(t *testing.T, l *objects.Lake, url, loc string) []string {
	t.Helper()
	ctx := context.Background()
	tbl, err := icebergspec.Read(ctx, func(ctx context.Context, loc string) (r io.ReadCloser, err error) {
		var b bytes.Buffer
		err = l.Read(ctx, strings.TrimPrefix(loc, lake.Root(url)+"/"), &b)
		return io.NopCloser(&b), err
	}, loc)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tbl.Snapshots, func(s icebergspec.Snapshot) bool { return s.ID == tbl.CurrentSnapshotID })
	tmp := t.TempDir()
	var files []string
	for n, f := range tbl.Snapshots[i].DataFiles {
		p := filepath.Join(tmp, fmt.Sprintf("%d.parquet", n))
		out, _ := os.Create(p)
		if err := l.Read(ctx, strings.TrimPrefix(f.Path, lake.Root(url)+"/"), out); err != nil {
			t.Fatal(err)
		}
		out.Close()
		files = append(files, "'"+p+"'")
	}
	return versionsOf(t, duckDB(t), fmt.Sprintf(versionSQL, "read_parquet(["+strings.Join(files, ", ")+"])"))
}

// scannedVersions are the versions a scan of a history table reads.
func scannedVersions(t *testing.T, scan *table.Scan) []string {
	t.Helper()
	tbl, err := scan.ToArrowTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	col := func(name string, row int) (string, bool) {
		c := tbl.Column(tbl.Schema().FieldIndices(name)[0]).Data()
		for _, chunk := range c.Chunks() {
			if row >= chunk.Len() {
				row -= chunk.Len()
				continue
			}
			if chunk.IsNull(row) {
				return "open", false
			}
			switch a := chunk.(type) {
			case *array.String:
				return a.Value(row), true
			case *array.Timestamp:
				return fmt.Sprint(int64(a.Value(row))), true
			}
			return fmt.Sprintf("%v", chunk.GetOneForMarshal(row)), true
		}
		return "", false
	}
	var out []string
	for row := range int(tbl.NumRows()) {
		id, _ := col("id", row)
		sf, _ := col("snapshot_from", row)
		st, _ := col("snapshot_to", row)
		vf, _ := col("valid_from", row)
		vt, _ := col("valid_to", row)
		raw, _ := col("_raw", row)
		sum := md5.Sum([]byte(raw))
		out = append(out, strings.Join([]string{id, sf, st, vf, vt, hex.EncodeToString(sum[:])}, "|"))
	}
	slices.Sort(out)
	return out
}

// A lake published before history existed (here: after two exports, its
// history tables dropped from the catalog and their folders removed, as a
// lake of the billsnap before has neither) keeps working: the next
// export, after one more change, commits the data tables as before and
// creates every history table, whose customers_history holds exactly the
// store's versions, the two closed before it existed included.
func TestALakeFromBeforeHistoryGainsIt(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 89, Customers: 15}, "")
	dir, lakeDir := t.TempDir(), t.TempDir()
	url := "file://" + lakeDir
	export := func() {
		t.Helper()
		if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
			t.Fatalf("export: %d %s", code, stderr)
		}
	}
	export()
	cs := srv.Dataset().Customers
	change(t, srv, cs[0].ID, func(c *sandbox.Customer) { c.Email = "new-" + c.Email })
	if err := srv.Remove("Customers", cs[1].ID); err != nil {
		t.Fatal(err)
	}
	export()
	dropHistoryTables(t, dir, lakeDir)
	if n := len(historyTables(t, url, dir)); n != 0 {
		t.Fatalf("%d history tables left, want none", n)
	}
	change(t, srv, cs[2].ID, func(c *sandbox.Customer) { c.FullName += " Jr" })
	export()
	checkHistoryInLake(t, srv, dir, url, 3)
	for _, tbl := range icebergTables(t, url, dir) {
		if n := len(tbl.Metadata().Snapshots()); n != 3 {
			t.Errorf("%s: %d Iceberg snapshots, want the 3 published", tbl.Identifier()[1], n)
		}
	}
}

// dropHistoryTables removes the history tables from the store at dir's
// default catalog and their folders from the file:// lake at lakeDir.
func dropHistoryTables(t *testing.T, dir, lakeDir string) {
	t.Helper()
	db, err := sql.Open("sqlite", lake.DefaultIceberg().SQLiteFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DELETE FROM iceberg_tables WHERE table_name LIKE '%" + lake.HistorySuffix + "'"); err != nil {
		t.Fatal(err)
	}
	folders, _ := filepath.Glob(filepath.Join(lakeDir, "*"+lake.HistorySuffix))
	if len(folders) == 0 {
		t.Fatal("the lake has no history table's folder to remove")
	}
	for _, f := range folders {
		os.RemoveAll(f)
	}
}
