package extract

import (
	"fmt"
	"strings"
	"testing"
)

// fullPage is a page of MaxPageSize records of 20 fields each.
func fullPage() []byte {
	var b strings.Builder
	b.WriteString(`{"Items":[`)
	for i := range MaxPageSize {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"ID":"%08d-aaaa-BBBB-cccc-0123456789ab"`, i)
		for f := 1; f < 20; f++ {
			fmt.Fprintf(&b, `,"F%d":%d`, f, i*100+f)
		}
		b.WriteByte('}')
	}
	b.WriteString(`],"Paging":{"CurrentPage":1,"Pages":1,"Results":100,"TotalCount":100,"NextPage":null,"PreviousPage":null}}`)
	return []byte(b.String())
}

// A page's decoding allocates per page, not per record or field: the
// records' fields share one slice and a GUID is read in place.
func TestDecodingAPageAllocatesPerPage(t *testing.T) {
	body := fullPage()
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := DecodePage(body); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 20 {
		t.Errorf("decoding a page of %d records: %.0f allocations, want at most 20", MaxPageSize, allocs)
	}
}

// Each record's fields are its own, in order, though they share a slice:
// appending to one record's fields leaves the next record's alone.
func TestRecordsKeepTheirOwnFields(t *testing.T) {
	p, err := DecodePage(fullPage())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range p.Records {
		if len(r.Fields) != 20 || r.Fields[0].Name != "ID" || r.Field("F19") != fmt.Sprint(i*100+19) {
			t.Fatalf("record %d: fields %v", i, r.Fields)
		}
	}
	_ = append(p.Records[0].Fields, Field{Name: "x", Raw: "1"})
	if f := p.Records[1].Fields[0]; f.Name != "ID" {
		t.Errorf("record 2's first field is %v after an append to record 1's", f)
	}
	if g, ok := ParseGUID(p.Records[7].ID); !ok || g != (GUID{0, 0, 0, 7, 0xaa, 0xaa, 0xbb, 0xbb, 0xcc, 0xcc, 1, 0x23, 0x45, 0x67, 0x89, 0xab}) {
		t.Errorf("ParseGUID(%s) = %x, %v", p.Records[7].ID, g, ok)
	}
	for _, bad := range []string{"0000000g-aaaa-bbbb-cccc-0123456789ab", "00000000-aaaa-bbbb-cccc-0123456789a", "00000000+aaaa-bbbb-cccc-0123456789ab"} {
		if _, ok := ParseGUID(bad); ok {
			t.Errorf("ParseGUID(%s) is ok", bad)
		}
	}
}

func BenchmarkDecodePage(b *testing.B) {
	body := fullPage()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodePage(body); err != nil {
			b.Fatal(err)
		}
	}
}
