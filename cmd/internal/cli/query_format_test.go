package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/job"
)

// queryOut runs billsnap query in the store at dir with args and
// returns its exit code, stdout and stderr.
func queryOut(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runWith(context.Background(), append([]string{"query", "--out", dir}, args...), &out, &errb, noEnv)
	return code, out.String(), errb.String()
}

// query --format prints the same rows as RFC 4180 CSV (a quoted field
// where it must be, NULL empty), as JSON with typed values (a number a
// number, a decimal a string with its scale, NULL null, a time RFC 3339)
// and as a Markdown pipe table; another format is exit 2, one line.
func TestQueryFormats(t *testing.T) {
	t.Parallel()
	dir := emptyStore(t).Out
	if code, out, errs := queryOut(t, dir, "--format", "csv", "SELECT 1 AS a, 'x' AS b"); code != job.ExitOK || out != "a,b\n1,x\n" {
		t.Errorf("csv: exit %d, %q (stderr %q)", code, out, errs)
	}
	const q = `SELECT 1 AS a, 'x,"y"' || chr(10) || 'z' AS b, 12.50::DECIMAL(10,2) AS d, NULL AS n,
		TIMESTAMPTZ '2026-01-02 03:04:05+00' AS t, DATE '2026-01-01' AS day, [1, 2] AS l, true AS ok, 'p|q' AS pipe,
		'ac84d249-db26-407f-95e2-b4d5368364d8'::UUID AS id`
	code, out, errs := queryOut(t, dir, "--format", "csv", q)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	want := []string{"1", "x,\"y\"\nz", "12.50", "", "2026-01-02T03:04:05Z", "2026-01-01", "[1,2]", "true", "p|q", "ac84d249-db26-407f-95e2-b4d5368364d8"}
	if code != job.ExitOK || err != nil || len(recs) != 2 || strings.Join(recs[1], "\x00") != strings.Join(want, "\x00") {
		t.Errorf("csv: exit %d, %v, %q (stderr %q)", code, err, out, errs)
	}
	code, out, errs = queryOut(t, dir, "--format", "json", q)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); code != job.ExitOK || err != nil || len(rows) != 1 {
		t.Fatalf("json: exit %d, %v, %q (stderr %q)", code, err, out, errs)
	}
	r := rows[0]
	if r["a"] != 1.0 || r["d"] != "12.50" || r["n"] != nil || r["t"] != "2026-01-02T03:04:05Z" || r["day"] != "2026-01-01" || r["ok"] != true ||
		r["id"] != "ac84d249-db26-407f-95e2-b4d5368364d8" {
		t.Errorf("json: %v", r)
	}
	if l, _ := r["l"].([]any); len(l) != 2 || l[0] != 1.0 {
		t.Errorf("json list: %v", r["l"])
	}
	if !strings.Contains(out, `{"a":1,"b":`) {
		t.Errorf("json keys out of the columns' order: %s", out)
	}
	if code, out, _ := queryOut(t, dir, "SELECT 'ac84d249-db26-407f-95e2-b4d5368364d8'::UUID AS id"); code != job.ExitOK || out != "id\nac84d249-db26-407f-95e2-b4d5368364d8\n" {
		t.Errorf("a UUID in the table: exit %d, %q", code, out)
	}
	code, out, _ = queryOut(t, dir, "--format", "markdown", "SELECT 1 AS a, 'p|q' AS b")
	if code != job.ExitOK || out != "| a | b |\n| --- | --- |\n| 1 | p\\|q |\n" {
		t.Errorf("markdown: exit %d, %q", code, out)
	}
	code, out, errs = queryOut(t, dir, "--format", "xml", "SELECT 1")
	if code != job.ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `"xml"`) {
		t.Errorf("unknown format: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// --max-rows cuts a table short and says so under it; a CSV or JSON has
// every row unless --max-rows is given, and then says so on stderr only.
func TestQueryMaxRows(t *testing.T) {
	t.Parallel()
	dir := emptyStore(t).Out
	const q = "SELECT * FROM range(150)"
	if _, out, _ := queryOut(t, dir, q); !strings.HasSuffix(out, "(150 rows, 100 shown)\n") {
		t.Errorf("table: %q", out[max(0, len(out)-60):])
	}
	if _, out, _ := queryOut(t, dir, "--format", "csv", q); strings.Count(out, "\n") != 151 {
		t.Errorf("csv: %d lines, want 151", strings.Count(out, "\n"))
	}
	_, out, errs := queryOut(t, dir, "--format", "json", "--max-rows", "2", q)
	var rows []any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 || !strings.Contains(errs, "150 rows, 2 printed") {
		t.Errorf("json --max-rows 2: %v, %q, stderr %q", err, out, errs)
	}
}

// query only reads: a statement that would write a file (COPY … TO in
// the working directory or in the store, EXPORT DATABASE), change the
// store (DELETE, CREATE), attach a new file, install or load an
// extension, or change a setting is exit 2 with one line, and no file is
// written; nor can a SELECT read a file outside the store. What the
// store holds stays readable.
func TestQueryIsReadOnly(t *testing.T) {
	t.Parallel()
	dir := emptyStore(t).Out
	elsewhere := t.TempDir()
	before := listTree(t, dir)
	for _, q := range []string{
		"COPY (SELECT 1) TO '" + filepath.Join(elsewhere, "x.csv") + "'",
		"COPY (SELECT 1) TO '" + filepath.Join(dir, "x.csv") + "'",
		"EXPORT DATABASE '" + filepath.Join(dir, "exported") + "'",
		"DELETE FROM snapshots",
		"CREATE TABLE memory.t AS SELECT 1",
		"ATTACH '" + filepath.Join(elsewhere, "new.duckdb") + "' AS n",
		"INSTALL httpfs",
		"LOAD httpfs",
		"SET enable_external_access = true",
		"SET lock_configuration = false",
	} {
		code, out, errs := queryOut(t, dir, q)
		if code != job.ExitUsage || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, want exit 2 and one line", q, code, out, errs)
		}
	}
	if code, out, errs := queryOut(t, dir, "SELECT * FROM read_text('/etc/hostname')"); code != job.ExitUsage || out != "" {
		t.Errorf("reading a file outside the store: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("query wrote %s", entries[0].Name())
	}
	if after := listTree(t, dir); after != before {
		t.Errorf("query changed the store:\nbefore %s\nafter  %s", before, after)
	}
	if code, out, errs := queryOut(t, dir, "SELECT count(*) AS n FROM snapshots"); code != job.ExitOK || !strings.HasPrefix(out, "n") {
		t.Errorf("reading the store: exit %d, %q, %q", code, out, errs)
	}
}

// listTree is the paths under dir and their sizes, one a line.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			b.WriteString(p + " " + fi.ModTime().String() + "\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// query --tables names every table and view of the read model with a
// description from the read model's documentation (no "not described"),
// --columns one's columns and types (docs/store.md's list of them is
// relations' TestStoreDocListsTheReadModel).
func TestQueryTablesAndColumns(t *testing.T) {
	t.Parallel()
	dir := emptyStore(t).Out
	code, out, errs := queryOut(t, dir, "--tables")
	if code != job.ExitOK || strings.Contains(out, "not described") || !strings.Contains(out, "snapshots ") || !strings.Contains(out, "latest_invoices ") {
		t.Errorf("--tables: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "columns ") || !strings.Contains(out, "codes ") {
		t.Errorf("--tables lists no data dictionary:\n%s", out)
	}
	code, out, _ = queryOut(t, dir, "--columns", "snapshots", "--format", "csv")
	if code != job.ExitOK || !strings.HasPrefix(out, "name,type,description,source_field\nid,VARCHAR,\"the snapshot's ID: its UTC start time") {
		t.Errorf("--columns snapshots: exit %d, %q", code, out)
	}
	code, out, _ = queryOut(t, dir, "--columns", "latest_subscription_charges", "--format", "csv")
	if want := "\nstatus,INTEGER,\"1 active: waits for its NextChargeDate; 7 charged: history"; code != job.ExitOK || !strings.Contains(out, want) ||
		!strings.Contains(out, ",Status\n") || !strings.Contains(out, "\nsnapshot_id,VARCHAR,\"the snapshot the row is of, the newest complete one (snapshots.id)\",\n") {
		t.Errorf("--columns latest_subscription_charges: exit %d, %q; want %q, field Status, snapshot_id's field NULL", code, out, want)
	}
	if code, _, errs := queryOut(t, dir, "--columns", "nope"); code != job.ExitUsage || !strings.Contains(errs, "--tables") {
		t.Errorf("--columns nope: exit %d, %q", code, errs)
	}
	if code, _, _ := queryOut(t, dir, "--tables", "SELECT 1"); code != job.ExitUsage {
		t.Errorf("--tables with SQL: exit %d", code)
	}
}
