package ingest

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/manifest"
)

// badName is the customer name of issue 45: FF and FE are never UTF-8, C3
// starts a sequence that "(" does not continue.
const badName = "Ann \xff\xfe\xc3( Ltd"

// staged writes one page's records into the staging of tables and ends
// the walk of table; it returns the fields it counted and the directory.
func staged(t *testing.T, table string, body string) ([]manifest.FieldStats, string, error) {
	t.Helper()
	dir := t.TempDir()
	s, err := New(dir, catalog.Tables(), testSettings, Hooks{Filled: func(string, string) {}, Dropped: func(string, []string) {},
		Ended: func(string) (extract.Tally, error) { return extract.Tally{}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	p, err := extract.DecodePage([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	sink := s.Sink(table)
	if err := sink.Page(p); err != nil {
		return nil, dir, err
	}
	if _, err := sink.End(); err != nil {
		t.Fatal(err)
	}
	return s.Fields(), dir, nil
}

// page is a list envelope of one record.
func page(record string) string {
	return `{"Paging":{"CurrentPage":1,"Pages":1,"Results":1,"TotalCount":1,"NextPage":null,"PreviousPage":null},"Items":[` + record + `]}`
}

// queryParquet scans one row of query over the Parquet files of table in
// dir: query's %s is the files.
func queryParquet(t *testing.T, dir, table, query string, dst ...any) error {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	files := filepath.Join(dir, table, "*.parquet")
	return db.QueryRow(fmt.Sprintf(query, "read_parquet('"+files+"')")).Scan(dst...)
}

// An assumed string with invalid UTF-8, in a record and in a child item,
// reaches Parquet repaired (each invalid byte U+FFFD, as Go's decoder
// reads it), DuckDB reads it, _raw keeps the bytes as \xHH text, and the
// repair is counted per table and field. Before the repair DuckDB refused
// the file ("Invalid string encoding found in Parquet file").
func TestInvalidUTF8IsRepairedAndCounted(t *testing.T) {
	t.Parallel()
	cust := `{"ID":"00000000-0000-0000-0000-000000000001","FullName":"` + badName + `","CompanyName":"ok","Note` + "\xff" + `":1}`
	fields, dir, err := staged(t, "customers", page(cust))
	if err != nil {
		t.Fatal(err)
	}
	var name, sent string
	if err := queryParquet(t, dir, "customers", "SELECT full_name, _raw->>'$.FullName' FROM %s", &name, &sent); err != nil {
		t.Fatal(err)
	}
	if want := "Ann \ufffd\ufffd\ufffd( Ltd"; name != want {
		t.Errorf("full_name %q, want %q", name, want)
	}
	if want := `Ann \xFF\xFE\xC3( Ltd`; sent != want {
		t.Errorf("_raw's FullName %q, want %q", sent, want)
	}
	got := map[string]int64{}
	for _, f := range fields {
		if f.Repaired > 0 {
			got[f.Table+"."+f.Field] = f.Repaired
		}
	}
	if len(got) != 2 || got["customers.FullName"] != 1 || got["customers.Note\ufffd"] != 1 {
		t.Errorf("repairs counted %v, want customers.FullName 1 and the new field Note\ufffd 1", got)
	}
}

// An invoice line's text with invalid UTF-8 is repaired in the child
// table and counted there, as invoice_lines.Text; the invoice's _raw
// keeps the bytes escaped, and so does the line's.
func TestInvalidUTF8InAChildItemIsCountedInItsTable(t *testing.T) {
	t.Parallel()
	inv := "{\"ID\":\"00000000-0000-0000-0000-000000000002\",\"InvoiceLines\":[{\"ID\":\"L1\xe2\x82\",\"Text\":\"Fee \x80\",\"Amount\":1}]}"
	fields, dir, err := staged(t, "invoices", page(inv))
	if err != nil {
		t.Fatal(err)
	}
	var id, text, sent string
	if err := queryParquet(t, dir, "invoice_lines", "SELECT id, text, _raw->>'$.Text' FROM %s", &id, &text, &sent); err != nil {
		t.Fatal(err)
	}
	if id != "L1\ufffd\ufffd" || text != "Fee \ufffd" || sent != `Fee \x80` {
		t.Errorf("line id %q, text %q, _raw's Text %q", id, text, sent)
	}
	var lines string
	if err := queryParquet(t, dir, "invoices", "SELECT _raw->>'$.InvoiceLines[0].ID' FROM %s", &lines); err != nil || lines != `L1\xE2\x82` {
		t.Errorf("the invoice's _raw keeps the line's ID as %s, %v", lines, err)
	}
	got := map[string]int64{}
	for _, f := range fields {
		got[f.Table+"."+f.Field] += f.Repaired
	}
	if got["invoice_lines.Text"] != 1 || got["invoice_lines.ID"] != 1 || got["invoices.InvoiceLines"] != 0 {
		t.Errorf("repairs counted %v, want invoice_lines.Text and .ID 1 each, none on the invoice", got)
	}
}

// A field the spec defines is strict: its value not valid UTF-8 is a
// contract break naming the record, the field and the byte.
func TestInvalidUTF8InAContractFieldBreaksTheContract(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]string{
		"R\xff":     "not valid UTF-8 at byte 2 of its value",
		`R\\\udc00`: `the escape \udc00 at byte 4 of its value is half a surrogate pair, no character`,
	} {
		ch := `{"ID":"00000000-0000-0000-0000-000000000003","ReferenceID":"` + value + `","Amount":1}`
		_, _, err := staged(t, "subscription_charges", page(ch))
		want = "record 00000000-0000-0000-0000-000000000003, field ReferenceID: " + want
		if err == nil || err.Error() != want {
			t.Errorf("err %v, want %s", err, want)
		}
	}
}

// escapedText leaves valid JSON text valid, and what it makes of text
// that is not is valid Unicode, however the escapes and backslashes fall:
// DuckDB, which refused the record, reads it as JSON.
func TestEscapedTextIsValidJSONAndUnicode(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, in := range []string{`"\\\ud800"`, `"\\ud800"`, `"\ud800\ud800\udc00"`, `"\udc00\ud800"`, `"\ud800"`, `"x\ud800\"\u00e6\ud800\\"`,
		"\"\xff\\ud800\xc3\"", `"` + strings.Repeat(`\ud800`, 50_000) + `"`} {
		out := escapedText(in)
		var n int
		if err := db.QueryRow("SELECT length(?::JSON ->> '$')", out).Scan(&n); err != nil || !json.Valid([]byte(out)) {
			t.Errorf("escapedText(%.40q) = %.60q: %v", in, out, err)
		}
	}
}

// A \u escape of a surrogate without its pair is valid JSON grammar but
// no character: DuckDB refuses the _raw that holds one ("invalid high
// surrogate in string") when it reads it as JSON, as the latest_ tables
// do. It is repaired like an invalid byte: U+FFFD in the column, the
// escape kept as text in _raw, counted. A pair, and an escaped backslash
// before a u, are left as they are.
func TestALoneSurrogateEscapeIsRepairedAndCounted(t *testing.T) {
	t.Parallel()
	cust := `{"ID":"00000000-0000-0000-0000-000000000004","FullName":"a\ud800b\uDCFFc","CompanyName":"\ud83d\ude00 \\ud800"}`
	fields, dir, err := staged(t, "customers", page(cust))
	if err != nil {
		t.Fatal(err)
	}
	var name, sent, company string
	err = queryParquet(t, dir, "customers", "SELECT full_name, (_raw::JSON)->>'$.FullName', (_raw::JSON)->>'$.CompanyName' FROM %s", &name, &sent, &company)
	if err != nil {
		t.Fatal(err)
	}
	if name != "a\ufffdb\ufffdc" || sent != `a\ud800b\uDCFFc` || company != `😀 \ud800` {
		t.Errorf("full_name %q, _raw's FullName %q, CompanyName %q", name, sent, company)
	}
	got := map[string]int64{}
	for _, f := range fields {
		got[f.Table+"."+f.Field] += f.Repaired
	}
	if got["customers.FullName"] != 1 || got["customers.CompanyName"] != 0 {
		t.Errorf("repairs counted %v, want customers.FullName 1 and no other", got)
	}
}
