package ddl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/lake"
)

// A table whose location the catalog gave (a REST catalog's, in a table
// bucket) is attached at that location, not under parquet.url: its Hive
// table over the location's data/ folder, DuckDB's view over the
// snapshot_id folders under the location, Trino's registration at it.
func TestTablesAtTheCatalogsLocation(t *testing.T) {
	rest := lake.DefaultIceberg()
	rest.Catalog, rest.URI, rest.Warehouse = "rest", "http://127.0.0.1:8181", "s3://tables"
	l := lakeOf(rest)
	l.Metadata = map[string]string{"invoices": "s3://tables/billsnap/invoices-7f3a/metadata/00001-aa.metadata.json"}
	l.Hive = true
	for engine, want := range map[string]string{
		"trino":  "external_location = 's3://tables/billsnap/invoices-7f3a/data'",
		"spark":  "LOCATION 's3a://tables/billsnap/invoices-7f3a/data'",
		"athena": "LOCATION 's3://tables/billsnap/invoices-7f3a/data/'",
		"duckdb": "read_parquet('s3://tables/billsnap/invoices-7f3a/**/snapshot_id=*/*.parquet'",
	} {
		var b bytes.Buffer
		if err := Write(&b, engine, l); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s --hive does not attach invoices at its location (%s):\n%s", engine, want, b.String())
		}
		if !strings.Contains(b.String(), "s3://lake/billing/invoice_lines") && !strings.Contains(b.String(), "s3a://lake/billing/invoice_lines") {
			t.Errorf("%s: invoice_lines, without metadata, is not under parquet.url:\n%s", engine, b.String())
		}
	}
}
