package snapshot

import (
	"strings"
	"testing"

	"github.com/billsnap/billsnap/extract"
)

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		raw  string
		want any
		err  string
	}{
		{String, `"Ann"`, "Ann", ""},
		{String, `"\u00e6\u00f8\u00e5"`, "æøå", ""},
		{String, `"a\"b"`, `a"b`, ""},
		{String, `null`, nil, ""},
		{String, ``, nil, ""},
		{String, `7`, nil, "want a string, got 7"},
		{Money, `12.5`, int64(1250), ""},
		{Money, `-3.05`, int64(-305), ""},
		{Money, `7`, int64(700), ""},
		{Money, `0.10`, int64(10), ""},
		{Money, `1.2300`, int64(123), ""},
		{Money, `12.345`, nil, "12.345 has more than 2 decimals"},
		{Money, `1e3`, nil, "want a decimal number, got 1e3"},
		{Money, `"12.50"`, nil, `want a decimal number, got "12.50"`},
		{Money, `9999999999999999.99`, int64(999999999999999999), ""},
		{Money, `99999999999999999.99`, nil, "out of range"},
		{Quantity, `2`, int64(20000), ""},
		{Quantity, `0.0001`, int64(1), ""},
		{Quantity, `0.00001`, nil, "more than 4 decimals"},
		{Int32, `7`, int32(7), ""},
		{Int32, `7.5`, nil, "want a whole number, got 7.5"},
		{Int32, `3000000000`, nil, "want a whole number"},
		{Int64, `3000000000`, int64(3000000000), ""},
		{Bool, `true`, true, ""},
		{Bool, `"true"`, nil, `want true or false, got "true"`},
		{Float, `0.25`, 0.25, ""},
		{Float, `"x"`, nil, "want a number"},
		{Timestamp, `"2026-11-22T03:00:05Z"`, int64(1795316405000000), ""},
		{Timestamp, `"2026-11-22T04:00:05+01:00"`, int64(1795316405000000), ""},
		{Timestamp, `"2026-11-22T03:00:05.5Z"`, int64(1795316405500000), ""},
		{Timestamp, `"2026-11-22T03:00:05"`, int64(1795316405000000), ""},
		{Timestamp, `"2026-11-22"`, int64(1795305600000000), ""},
		{Timestamp, `"22/11/2026"`, nil, `"22/11/2026" is not an ISO 8601 date-time`},
		{Timestamp, `1795316405`, nil, "want an ISO 8601 date-time string"},
	} {
		got, err := convert(tc.kind, tc.raw)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("convert(%d, %s) = %v, %v; want error %q", tc.kind, tc.raw, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("convert(%d, %s) = %#v, %v; want %#v", tc.kind, tc.raw, got, err, tc.want)
		}
	}
}

func TestRowNamesRecordAndField(t *testing.T) {
	tb, _ := TableNamed("invoices")
	fields := []extract.Field{{Name: "TotalAmount", Raw: `"a lot"`}}
	_, err := tb.row("6f1c9a7e-2b3d-4c5e-8f90-a1b2c3d4e5f6", "", fields, "")
	if err == nil || err.Error() != `record 6f1c9a7e-2b3d-4c5e-8f90-a1b2c3d4e5f6, field TotalAmount: want a decimal number, got "a lot"` {
		t.Errorf("row: %v", err)
	}
	row, err := tb.row("6f1c9a7e-2b3d-4c5e-8f90-a1b2c3d4e5f6", "", nil, `{"ID":"x"}`)
	if err != nil || len(row) != len(tb.ColumnNames()) || row[1] != nil || row[len(row)-1] != `{"ID":"x"}` {
		t.Errorf("row of a record without fields: %v, %v", row, err)
	}
}
