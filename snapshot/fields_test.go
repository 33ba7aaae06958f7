package snapshot

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A service that sends assumed fields in other JSON types, each with a
// lossless reading, gives a snapshot equal to the answer key whose typed
// columns hold what a clean-typed service of the same seed gives, in
// DuckDB and in Parquet; every coercion is counted, exactly.
func TestVariantTypesLandAsTheCleanRun(t *testing.T) {
	t.Parallel()
	opts, clean, cleanSum := cleanRun(t)
	srv := sandboxtest.Start(t, opts, "variants=0.5")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil || sum.Status != StatusComplete {
		t.Fatalf("variant export: %v, %+v", err, sum)
	}
	checkKey(t, sum, srv.AnswerKey())
	varied := dumpStore(t, cfg, sum.ID)
	for from, rows := range clean {
		if got := varied[from]; got != rows {
			t.Errorf("%s differs from the clean run's:\n%s", from, firstDiff(rows, got))
		}
	}
	checkFieldCounts(t, sum.Fields, srv.FieldKeys())
	for _, want := range []string{"invoices.invoice_number", "payment_methods.active", "invoices.total_amount", "invoice_lines.quantity",
		"discounts.percentage", "payment_methods.expiry_date", "transactions.transaction_date", "product_plan_charge_pricings.unit_price"} {
		if f := fieldNamed(sum.Fields, want); f.Coerced == 0 || f.Untyped != 0 {
			t.Errorf("%s: %+v; want values coerced, none untyped", want, f)
		}
	}
	for _, f := range cleanSum.Fields {
		if f.Drifted() {
			t.Errorf("the clean run drifted: %+v", f)
		}
	}
}

// Values with no lossless reading are NULL in their column and nothing
// else changes: the typed columns differ from the clean run's exactly in
// the values counted untyped, and the counts are exact.
func TestUntypedValuesAreNullAndCounted(t *testing.T) {
	t.Parallel()
	opts, clean, _ := cleanRun(t)
	srv := sandboxtest.Start(t, opts, "untyped=0.2")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil || sum.Status != StatusComplete {
		t.Fatalf("untyped export: %v, %+v", err, sum)
	}
	checkKey(t, sum, srv.AnswerKey())
	checkFieldCounts(t, sum.Fields, srv.FieldKeys())
	db := readDB(t, cfg)
	total := int64(0)
	for _, f := range sum.Fields {
		if f.Untyped == 0 || f.Kind == "list" {
			continue
		}
		total += f.Untyped
		// The row with an untyped value shows it NULL, with the value in _raw.
		var n int64
		q := fmt.Sprintf(`SELECT count(*) FROM %s WHERE snapshot_id = (SELECT id FROM latest_snapshot) AND %s IS NULL AND json_type(_raw, '$.%s') NOT IN ('NULL')`, f.Table, f.Column, f.Field)
		if err := db.QueryRow(q).Scan(&n); err != nil || n != f.Untyped {
			t.Errorf("%s.%s: %d rows NULL with a value in _raw (%v); %d counted untyped", f.Table, f.Column, n, err, f.Untyped)
		}
		if f.Example == "" {
			t.Errorf("%s.%s: no example record", f.Table, f.Column)
		}
	}
	if total < 100 {
		t.Fatalf("only %d untyped values: the case does not test much", total)
	}
	varied := dumpStoreOf(t, cfg, sum.ID)
	for from, rows := range clean {
		for _, d := range cellDiffs(rows, varied[from]) {
			if d.got != "NULL" {
				t.Errorf("%s, row %s, column %d: %s, clean run %s; want only untyped NULLs to differ", from, d.id, d.col, d.got, d.want)
			}
		}
	}
}

// sharedClean is the clean-typed service's snapshot that the variant, the
// untyped and the renaming services' snapshots of the same sandbox are
// compared with, taken once per test binary (cleanRun): the sandbox's
// options, the store's dump (dumpStore), the summary, and why it could
// not be taken.
var sharedClean struct {
	once sync.Once
	opts sandbox.Options
	rows map[string]string
	sum  *Summary
	err  error
}

// cleanRun is the clean snapshot's sandbox options, dump and summary,
// shared: read them, never change them.
func cleanRun(t *testing.T) (sandbox.Options, map[string]string, *Summary) {
	t.Helper()
	sharedClean.once.Do(func() {
		sharedClean.err = errors.New("it could not be taken: see the first test that failed")
		sharedClean.opts = sandbox.Options{Seed: 21, Customers: 120, Planted: 1, Now: time.Now().UTC().Truncate(time.Second)}
		sharedClean.rows, sharedClean.sum = takeOf(t, sharedClean.opts, "")
		sharedClean.err = nil
	})
	if sharedClean.err != nil {
		t.Fatalf("the clean snapshot: %v", sharedClean.err)
	}
	return sharedClean.opts, sharedClean.rows, sharedClean.sum
}

func takeOf(t *testing.T, opts sandbox.Options, faults string) (map[string]string, *Summary) {
	t.Helper()
	srv := sandboxtest.Start(t, opts, faults)
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil || sum.Status != StatusComplete {
		t.Fatalf("export: %v, %+v", err, sum)
	}
	return dumpStore(t, cfg, sum.ID), sum
}

func checkKey(t *testing.T, sum *Summary, key sandbox.AnswerKey) {
	t.Helper()
	for _, st := range sum.Tables {
		want := key.Tables[st.Table]
		if st.IDsSHA256 != want.IDsSHA256 || st.DuckDBRows != int64(want.Count) || st.ParquetRows != int64(want.Count) {
			t.Errorf("%s: %+v, answer key %+v", st.Table, st, want)
		}
	}
}

// checkFieldCounts compares what the export counted of each field with
// what the sandbox sent.
func checkFieldCounts(t *testing.T, got []manifest.FieldStats, key map[string]map[string]sandbox.FieldKey) {
	t.Helper()
	seen := 0
	for _, f := range got {
		want := key[f.Table][f.Field]
		types := map[string]int64{}
		for _, tc := range f.SeenTypes() {
			types[tc.Type] = tc.Count
		}
		if fmt.Sprint(types) != fmt.Sprint(want.Types) || f.Coerced != want.Coerced || f.Untyped != want.Untyped {
			t.Errorf("%s.%s (%s): types %v, coerced %d, untyped %d; the sandbox sent %+v", f.Table, f.Field, f.Column, types, f.Coerced, f.Untyped, want)
		}
		if f.Received() > 0 {
			seen++
		}
	}
	sent := 0
	for table, fields := range key {
		for f := range fields {
			// A collection's record ID is the walker's, checked as a
			// GUID there: not counted as a field.
			if f != "ID" || slices.ContainsFunc(got, func(s manifest.FieldStats) bool { return s.Table == table && s.Field == "ID" }) {
				sent++
			}
		}
	}
	if seen != sent {
		t.Errorf("the export counted %d fields that came; the sandbox sent %d", seen, sent)
	}
}

func fieldNamed(fs []manifest.FieldStats, tableColumn string) manifest.FieldStats {
	table, column, _ := strings.Cut(tableColumn, ".")
	for _, f := range fs {
		if f.Table == table && f.Column == column {
			return f
		}
	}
	return manifest.FieldStats{}
}

// dumpStore is every table's id, parent and typed columns, a line per row
// in id order, from latest_<table> and from the snapshot's Parquet.
func dumpStore(t *testing.T, cfg testCfg, id string) map[string]string {
	t.Helper()
	return dumpStoreOf(t, cfg, id)
}

func dumpStoreOf(t *testing.T, cfg testCfg, id string) map[string]string {
	t.Helper()
	db := readDB(t, cfg)
	out := map[string]string{}
	for _, tb := range catalog.Tables() {
		cols := tb.LatestColumnNames()
		pq := fmt.Sprintf("read_parquet('%s')", filepath.Join(cfg.Out, "parquet", tb.Name, "snapshot_id="+id, "*.parquet"))
		out["latest_"+tb.Name] = dumpRows(t, db, "latest_"+tb.Name, cols)
		out["Parquet of "+tb.Name] = dumpRows(t, db, pq, cols)
	}
	return out
}

func dumpRows(t *testing.T, db *sql.DB, from string, cols []string) string {
	t.Helper()
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = fmt.Sprintf("coalesce(CAST(%s AS VARCHAR), 'NULL')", c)
	}
	var dump sql.NullString
	q := fmt.Sprintf("SELECT string_agg(concat_ws('|', %s), chr(10) ORDER BY id) FROM %s", strings.Join(exprs, ", "), from)
	if err := db.QueryRow(q).Scan(&dump); err != nil {
		t.Fatalf("%s: %v", from, err)
	}
	return dump.String
}

type cellDiff struct {
	id        string
	col       int
	got, want string
}

// cellDiffs lists the cells where got differs from want (dumps of one
// table, rows in the same order).
func cellDiffs(want, got string) []cellDiff {
	var out []cellDiff
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	if len(wl) != len(gl) {
		return []cellDiff{{got: fmt.Sprintf("%d rows", len(gl)), want: fmt.Sprintf("%d rows", len(wl))}}
	}
	for i := range wl {
		wc, gc := strings.Split(wl[i], "|"), strings.Split(gl[i], "|")
		for c := range wc {
			if c >= len(gc) || wc[c] != gc[c] {
				out = append(out, cellDiff{id: wc[0], col: c, got: strings.Join(gc[c:min(c+1, len(gc))], ""), want: wc[c]})
			}
		}
	}
	return out
}

func firstDiff(want, got string) string {
	d := cellDiffs(want, got)
	if len(d) == 0 {
		return "(no cell differs)"
	}
	return fmt.Sprintf("%d cells differ; first: row %s, column %d: %q, want %q", len(d), d[0].id, d[0].col, d[0].got, d[0].want)
}

func newField(fs []manifest.FieldStats, table, field string) manifest.FieldStats {
	for _, f := range fs {
		if f.Table == table && f.Field == field && f.New() {
			return f
		}
	}
	return manifest.FieldStats{}
}

func rowsOf(sum *Summary, table string) int64 {
	for _, st := range sum.Tables {
		if st.Table == table {
			return st.DuckDBRows
		}
	}
	return -1
}

// An invoice whose InvoiceLines is not an array keeps its lines in _raw
// only, counted as untyped; the spec's ProductPlanChargePricings not being
// an array breaks the contract.
func TestNestedListsThatAreNot(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 4, Customers: 30}, `set=Invoices.InvoiceLines@2:{"Lines":3}`)
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	inv := srv.Dataset().Invoices[1]
	lines := fieldNamed(sum.Fields, "invoices.invoice_lines")
	if lines.Untyped != 1 || lines.Example != inv.ID || lines.Types.Object != 1 || lines.Kind != "list" {
		t.Errorf("InvoiceLines: %+v", lines)
	}
	if got, want := rowsOf(sum, "invoice_lines"), int64(srv.AnswerKey().Tables["invoice_lines"].Count-len(inv.InvoiceLines)); got != want {
		t.Errorf("%d lines, want %d (the answer key's without the invoice's %d)", got, want, len(inv.InvoiceLines))
	}

	srv = sandboxtest.Start(t, sandbox.Options{Seed: 4, Customers: 30}, `set=ProductPlans.ProductPlanChargePricings@1:"none"`)
	_, err = take(t, testConfig(srv, t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), `field ProductPlanChargePricings: want an array, got "none"`) {
		t.Errorf("pricings not an array: %v", err)
	}
}
