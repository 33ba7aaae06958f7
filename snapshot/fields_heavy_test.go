//go:build heavy

package snapshot

import (
	"database/sql"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A field the service sends under another name lands in its column when
// the configuration maps it; without the mapping the column is empty, the
// field is new and the column's own field absent. A field with no column
// gets one when the configuration adds it, and the read model's data
// dictionary names both fields. The mapped snapshot is
// compared with the shared clean one (cleanRun), of the same sandbox.
func TestMappedFieldsLandInTheirColumns(t *testing.T) {
	t.Parallel()
	opts, clean, _ := cleanRun(t)
	srv := sandboxtest.Start(t, opts, "rename=Invoices.InvoiceNumber:InvoiceNo")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	number, fresh := fieldNamed(sum.Fields, "invoices.invoice_number"), newField(sum.Fields, "invoices", "InvoiceNo")
	if number.Received() != 0 || fresh.Types.Number+fresh.Types.String != rowsOf(sum, "invoices") {
		t.Errorf("unmapped: invoice_number %+v, InvoiceNo %+v", number, fresh)
	}

	cfg = testConfig(srv, t.TempDir())
	cfg.Fields = catalog.Mapping{"invoices": {"invoice_number": {Field: "InvoiceNo"}},
		"customers": {"culture": {Field: "Culture", Type: "string"}}}
	sum, err = take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := dumpStore(t, cfg, sum.ID)
	if got["latest_invoices"] != clean["latest_invoices"] || got["Parquet of invoices"] != clean["Parquet of invoices"] {
		t.Errorf("mapped invoice_number differs from the clean run's: %s", firstDiff(clean["latest_invoices"], got["latest_invoices"]))
	}
	if f := fieldNamed(sum.Fields, "invoices.invoice_number"); f.Field != "InvoiceNo" || f.Received() != rowsOf(sum, "invoices") {
		t.Errorf("mapped: %+v", f)
	}
	var n, cultures int
	if err := readDB(t, cfg).QueryRow(`SELECT count(*), count(culture) FILTER (WHERE culture = (_raw->>'Culture')) FROM customers WHERE snapshot_id = (SELECT id FROM latest_snapshot)`).Scan(&n, &cultures); err != nil || n == 0 || cultures != n {
		t.Errorf("added column culture: %d of %d rows hold the field (%v)", cultures, n, err)
	}
	var added, mapped sql.NullString
	if err := readDB(t, cfg).QueryRow(`SELECT max(source_field) FILTER (WHERE table_name = 'latest_customers' AND column_name = 'culture'),
		max(source_field) FILTER (WHERE table_name = 'invoices' AND column_name = 'invoice_number') FROM columns`).Scan(&added, &mapped); err != nil ||
		added.String != "Culture" || mapped.String != "InvoiceNo" {
		t.Errorf("the data dictionary: culture's field %v, invoice_number's %v (%v); want Culture, InvoiceNo", added, mapped, err)
	}
}
