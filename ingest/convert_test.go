package ingest

import (
	"strings"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
)

// A value in its column's own form is typed, in either class of column.
func TestConvertTyped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind catalog.Kind
		raw  string
		want any
	}{
		{catalog.String, `"Ann"`, "Ann"},
		{catalog.String, `"\u00e6\u00f8\u00e5"`, "æøå"},
		{catalog.String, `"a\"b"`, `a"b`},
		{catalog.String, `null`, nil},
		{catalog.String, ``, nil},
		{catalog.Money, `12.5`, int64(1250)},
		{catalog.Money, `-3.05`, int64(-305)},
		{catalog.Money, `7`, int64(700)},
		{catalog.Money, `0.10`, int64(10)},
		{catalog.Money, `1.2300`, int64(123)},
		{catalog.Money, `0.000`, int64(0)},
		{catalog.Money, `1e3`, int64(100000)},
		{catalog.Money, `1.255E1`, int64(1255)},
		{catalog.Money, `125e-2`, int64(125)},
		{catalog.Money, `9999999999999999.99`, int64(999999999999999999)},
		{catalog.Quantity, `2`, int64(20000)},
		{catalog.Quantity, `0.0001`, int64(1)},
		{catalog.Quantity, `-0`, int64(0)},
		{catalog.Int32, `7`, int32(7)},
		{catalog.Int64, `3000000000`, int64(3000000000)},
		{catalog.Bool, `true`, true},
		{catalog.Bool, `false`, false},
		{catalog.Float, `0.25`, 0.25},
		{catalog.Float, `-1e-3`, -0.001},
		{catalog.Timestamp, `"2026-11-22T03:00:05Z"`, int64(1795316405000000)},
		{catalog.Timestamp, `"2026-11-22T03:00:05.5Z"`, int64(1795316405500000)},
	} {
		for _, contract := range []bool{false, true} {
			got, o, err := convert(catalog.Column{Kind: tc.kind, Contract: contract}, tc.raw)
			if err != nil || got != tc.want || o != typed {
				t.Errorf("convert(%s, contract %v, %s) = %#v, %d, %v; want %#v, typed", tc.kind, contract, tc.raw, got, o, err, tc.want)
			}
		}
	}
}

// A date-time in another ISO 8601 form is read without loss and counted
// as coerced, in either class of column: its JSON type is the spec's.
func TestConvertTimestampForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want int64
	}{
		{`"2026-11-22T04:00:05+01:00"`, 1795316405000000},
		{`"2026-11-22T03:00:05+00:00"`, 1795316405000000},
		{`"2026-11-21T22:00:05-05:00"`, 1795316405000000},
		{`"2026-11-22T03:00:05"`, 1795316405000000},
		{`"2026-11-22T03:00:05.25"`, 1795316405250000},
		{`"2026-11-22"`, 1795305600000000},
	} {
		for _, contract := range []bool{false, true} {
			got, o, err := convert(catalog.Column{Kind: catalog.Timestamp, Contract: contract}, tc.raw)
			if err != nil || got != tc.want || o != coerced {
				t.Errorf("convert(timestamp, contract %v, %s) = %#v, %d, %v; want %d, coerced", contract, tc.raw, got, o, err, tc.want)
			}
		}
	}
}

// An assumed column takes a value of another JSON type when nothing is
// lost, and leaves anything else NULL, untyped, without an error.
func TestConvertAssumed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind catalog.Kind
		raw  string
		want any
		out  outcome
	}{
		{catalog.String, `10001`, "10001", coerced},
		{catalog.String, `1e3`, "1e3", coerced},
		{catalog.String, `-0.5`, "-0.5", coerced},
		{catalog.String, `true`, "true", coerced},
		{catalog.String, `{"ID":"x"}`, nil, untyped},
		{catalog.String, `["a"]`, nil, untyped},
		{catalog.Money, `"12.50"`, int64(1250), coerced},
		{catalog.Money, `"-3"`, int64(-300), coerced},
		{catalog.Money, `"12.345"`, nil, untyped}, // the column cannot hold it exactly
		{catalog.Money, `12.345`, nil, untyped},
		{catalog.Money, `" 12.50"`, nil, untyped},
		{catalog.Money, `"12,50"`, nil, untyped},
		{catalog.Money, `"n/a"`, nil, untyped},
		{catalog.Money, `"0x10"`, nil, untyped},
		{catalog.Money, `"01.5"`, nil, untyped},
		{catalog.Money, `true`, nil, untyped},
		{catalog.Money, `{"Amount":12.5}`, nil, untyped},
		{catalog.Money, `99999999999999999.99`, nil, untyped},
		{catalog.Quantity, `"3"`, int64(30000), coerced},
		{catalog.Quantity, `"0.00001"`, nil, untyped},
		{catalog.Int32, `7.0`, int32(7), coerced},
		{catalog.Int32, `"7"`, int32(7), coerced},
		{catalog.Int32, `7.5`, nil, untyped},
		{catalog.Int32, `3000000000`, nil, untyped},
		{catalog.Int32, `"3000000000"`, nil, untyped},
		{catalog.Int64, `"3000000000"`, int64(3000000000), coerced},
		{catalog.Int64, `3e9`, int64(3000000000), coerced},
		{catalog.Bool, `"true"`, true, coerced},
		{catalog.Bool, `"FALSE"`, false, coerced},
		{catalog.Bool, `"True"`, true, coerced},
		{catalog.Bool, `1`, true, coerced},
		{catalog.Bool, `0`, false, coerced},
		{catalog.Bool, `"maybe"`, nil, untyped},
		{catalog.Bool, `2`, nil, untyped},
		{catalog.Bool, `"1"`, nil, untyped},
		{catalog.Float, `"12.5"`, 12.5, coerced},
		{catalog.Float, `"x"`, nil, untyped},
		{catalog.Float, `false`, nil, untyped},
		{catalog.Timestamp, `"22/11/2026"`, nil, untyped},
		{catalog.Timestamp, `"yesterday"`, nil, untyped},
		{catalog.Timestamp, `1795316405`, nil, untyped}, // seconds or milliseconds: nothing says which
	} {
		got, o, err := convert(catalog.Column{Kind: tc.kind}, tc.raw)
		if err != nil || got != tc.want || o != tc.out {
			t.Errorf("convert(%s, %s) = %#v, %d, %v; want %#v, %d", tc.kind, tc.raw, got, o, err, tc.want, tc.out)
		}
	}
}

// A contract column takes only its own JSON type; anything else is an
// error that says what was wanted.
func TestConvertContract(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind catalog.Kind
		raw  string
		err  string
	}{
		{catalog.String, `7`, "want a string, got 7"},
		{catalog.String, `{"ID":"x"}`, `want a string, got {"ID":"x"}`},
		{catalog.Quantity, `"abc"`, `want a decimal number, got "abc"`},
		{catalog.Quantity, `"12.50"`, `want a decimal number, got "12.50"`},
		{catalog.Quantity, `0.00001`, "0.00001 has more than 4 decimals"},
		{catalog.Money, `99999999999999999.99`, "out of range"},
		{catalog.Int32, `7.5`, "want a whole number, got 7.5"},
		{catalog.Int32, `"7"`, `want a whole number, got "7"`},
		{catalog.Int32, `3000000000`, "want a whole number"},
		{catalog.Bool, `"true"`, `want true or false, got "true"`},
		{catalog.Float, `"x"`, "want a number"},
		{catalog.Timestamp, `"22/11/2026"`, `"22/11/2026" is not an ISO 8601 date-time`},
		{catalog.Timestamp, `1795316405`, "want an ISO 8601 date-time string"},
	} {
		got, _, err := convert(catalog.Column{Kind: tc.kind, Contract: true}, tc.raw)
		if err == nil || !strings.Contains(err.Error(), tc.err) || got != nil {
			t.Errorf("convert(%s, contract, %s) = %#v, %v; want error %q", tc.kind, tc.raw, got, err, tc.err)
		}
	}
}

func TestIsNumberText(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"0": true, "-0": true, "12.50": true, "1e3": true, "1E+3": true, "1.5e-2": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "+1": false, "1e": false, "1e+": false, "NaN": false,
		"Infinity": false, " 1": false, "1 ": false, "0x10": false, "1_000": false} {
		if got := isNumberText(s); got != want {
			t.Errorf("isNumberText(%q) = %v", s, got)
		}
	}
}

// A contract field's error names the record and the field; an assumed
// field's bad value gives a row with NULL in its column and _raw as sent.
func TestRowNamesRecordAndField(t *testing.T) {
	t.Parallel()
	id := "6f1c9a7e-2b3d-4c5e-8f90-a1b2c3d4e5f6"
	charges, _ := catalog.TableNamed("subscription_charges")
	rec := extract.Record{ID: id, Fields: []extract.Field{{Name: "Amount", Raw: `"abc"`}}}
	_, err := newRowBuilder(charges, nil).record(&rec)
	if err == nil || err.Error() != `record 6f1c9a7e-2b3d-4c5e-8f90-a1b2c3d4e5f6, field Amount: want a decimal number, got "abc"` {
		t.Errorf("row: %v", err)
	}
	invoices, _ := catalog.TableNamed("invoices")
	rec = extract.Record{ID: id, Raw: `{"ID":"x","TotalAmount":"a lot"}`, Fields: []extract.Field{{Name: "TotalAmount", Raw: `"a lot"`}}}
	row, err := newRowBuilder(invoices, nil).record(&rec)
	total := 1 + indexOfColumn(invoices, "total_amount")
	if err != nil || len(row) != len(invoices.ColumnNames()) || row[total] != nil || row[len(row)-1] != rec.Raw {
		t.Errorf("row of an untyped total: %v, %v", row, err)
	}
}

func indexOfColumn(t catalog.Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	panic("no column " + name)
}
