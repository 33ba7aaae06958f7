package ddl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/internal/golden"
	"github.com/billsnap/billsnap/lake"
)

// lakeOf is a lake of two tables on S3 with catalog c.
func lakeOf(c lake.Iceberg) Lake {
	tables := []Table{
		{"invoices", []Column{{"id", "string"}, {"invoice_date", "timestamp"}, {"total_amount", "money"}, {"lines", "integer"},
			{"paid", "boolean"}, {"_raw", "string"}}},
		{"invoice_lines", []Column{{"id", "string"}, {"invoice_id", "string"}, {"quantity", "quantity"}, {"units", "bigint"},
			{"rate", "number"}, {"_raw", "string"}}},
	}
	return Lake{URL: "s3://lake/billing?endpoint=http://127.0.0.1:9000&region=eu-west-1&use_path_style=true", Iceberg: c,
		SQLiteDB: "/srv/billsnap/.billsnap/iceberg.db", Tables: tables,
		Metadata: map[string]string{"invoices": "s3://lake/billing/invoices/metadata/00002-aa.metadata.json",
			"invoice_lines":    "s3://lake/billing/invoice_lines/metadata/00002-bb.metadata.json",
			"invoices_history": "s3://lake/billing/invoices_history/metadata/00001-cc.metadata.json"}}
}

// Every engine's statements, for each kind of catalog and for Hive
// tables, as golden files (checked by eye: the types each engine names,
// Iceberg where the engine reads the catalog, Hive otherwise). An engine
// that says the same for two cases has one file, named for the first.
func TestStatements(t *testing.T) {
	sqlCat, rest, glue := lake.DefaultIceberg(), lake.DefaultIceberg(), lake.DefaultIceberg()
	rest.Catalog, rest.URI, rest.Warehouse = "rest", "https://catalog.example.com/api", "analytics"
	glue.Catalog, glue.Warehouse = "glue", "123456789012"
	hive := lakeOf(sqlCat)
	hive.Hive = true
	for _, engine := range Engines {
		seen := map[string]bool{}
		for _, c := range []struct {
			name string
			l    Lake
		}{{"hive", hive}, {"sql", lakeOf(sqlCat)}, {"rest", lakeOf(rest)}, {"glue", lakeOf(glue)}} {
			var b bytes.Buffer
			if err := Write(&b, engine, c.l); err != nil {
				t.Fatalf("%s %s: %v", engine, c.name, err)
			}
			if !seen[b.String()] {
				seen[b.String()] = true
				golden.Check(t, engine+"-"+c.name+".sql", b.Bytes())
			}
		}
	}
}

// Athena reads S3 only; an unknown engine is named.
func TestRefusals(t *testing.T) {
	l := lakeOf(lake.DefaultIceberg())
	l.URL = "gs://lake/billing"
	for engine, want := range map[string]string{"athena": "athena reads s3:// only", "presto": `no engine "presto"`} {
		if err := Write(&bytes.Buffer{}, engine, l); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", engine, err, want)
		}
	}
}

// Every identifier printed into a statement is quoted, as each engine
// quotes one (double quotes in Trino, DuckDB and Athena's queries,
// backticks in Spark and Athena's DDL, the quote doubled inside), and
// every name or path in a string literal is a literal: a namespace, a
// table or a column holding ", ' and ` never appears raw (issue 62, item 7).
func TestIdentifiersAreQuoted(t *testing.T) {
	const weird = "n\"s'x`y"
	sqlCat, rest, glue := lake.DefaultIceberg(), lake.DefaultIceberg(), lake.DefaultIceberg()
	rest.Catalog, rest.URI, rest.Warehouse = "rest", "https://catalog.example.com/api", "analytics"
	glue.Catalog, glue.Warehouse = "glue", "123456789012"
	for _, c := range []lake.Iceberg{sqlCat, rest, glue} {
		c.Namespace = weird
		l := lakeOf(c)
		l.Tables[0].Name, l.Tables[0].Columns[1].Name = "t"+weird, "c"+weird
		l.Metadata["t"+weird] = "s3://lake/billing/t" + weird + "/metadata/00002-aa.metadata.json"
		l.Metadata["t"+weird+"_history"] = "s3://lake/billing/t" + weird + "_history/metadata/00001-cc.metadata.json"
		hive := l
		hive.Hive = true
		for _, engine := range Engines {
			for _, each := range []Lake{l, hive} {
				var b bytes.Buffer
				if err := Write(&b, engine, each); err != nil {
					t.Fatalf("%s %s: %v", engine, c.Catalog, err)
				}
				if strings.Contains(b.String(), weird) {
					t.Errorf("%s, catalog %s, hive %t: a name is printed raw:\n%s", engine, c.Catalog, each.Hive, b.String())
				}
			}
		}
	}
}
