package extract

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// A page decoded by the one-pass scanner is the page gjson's ForEach gave
// (the earlier decoder, kept below as the reference): the same records,
// IDs, raw text and fields in order, duplicates and escaped names
// included, and the same refusal, word for word. Bodies: the bad-input
// table, the fuzz corpus, and random pages with escapes, nested values,
// odd spacing, duplicate and missing keys.
func TestScannerMatchesGJSON(t *testing.T) {
	t.Parallel()
	var bodies []string
	for _, b := range badResponses {
		bodies = append(bodies, b.body)
	}
	files, _ := filepath.Glob("testdata/fuzz/FuzzDecodePage/*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, v, ok := strings.Cut(string(b), "[]byte("); ok {
			if s, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), ")"))); err == nil {
				bodies = append(bodies, s)
			}
		}
	}
	rng := rand.New(rand.NewPCG(49, 2))
	for range 3000 {
		bodies = append(bodies, randomPage(rng))
	}
	for _, body := range bodies {
		got, gerr := decodePage(body)
		want, werr := referenceDecode(body)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("%q:\nerror %v\nwant  %v", body, gerr, werr)
		}
		if gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\npage %+v\nwant %+v", body, got, want)
		}
	}
	items := `[ {"A" : [1, {"B":"]}"}], "C":"x\"y\\"} ,7,"s\"",[] ]`
	var els []string
	fields := Elements(items, nil, func(e string, _ []Field) bool { els = append(els, e); return true })
	if w := []string{`{"A" : [1, {"B":"]}"}], "C":"x\"y\\"}`, `7`, `"s\""`, `[]`}; !reflect.DeepEqual(els, w) {
		t.Errorf("Elements: %q, want %q", els, w)
	}
	if w := []Field{{"A", `[1, {"B":"]}"}]`}, {"C", `"x\"y\\"`}}; !reflect.DeepEqual(fields, w) {
		t.Errorf("Elements: members %q, want %q", fields, w)
	}
}

// randomPage is a page body, usually valid, of a few records.
func randomPage(rng *rand.Rand) string {
	sp := func() string { return []string{"", "", " ", "\n\t ", "\r\n"}[rng.IntN(5)] }
	str := func() string {
		s := []string{"a", `q"q`, `b\s`, "é", "\\", "", `\"`, "x\ny", "}]"}[rng.IntN(9)] + strconv.Itoa(rng.IntN(99))
		if rng.IntN(4) == 0 { // a long one, its escapes anywhere
			s = strings.Repeat("x", rng.IntN(70)) + s + strings.Repeat(`\`, rng.IntN(3)) + strings.Repeat("y", rng.IntN(40))
		}
		return strconv.Quote(s)
	}
	var value func(depth int) string
	value = func(depth int) string {
		switch k := rng.IntN(9); {
		case k < 3:
			return str()
		case k == 3:
			return []string{"null", "true", "false", "-1.5e3", "0", "12345678901234567890"}[rng.IntN(6)]
		case k == 4 && depth < 3:
			n := rng.IntN(4)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = sp() + value(depth+1) + sp()
			}
			return "[" + strings.Join(parts, ",") + "]"
		case k == 5 && depth < 3:
			return object(rng, sp, str, value, depth+1, false)
		}
		return strconv.Itoa(rng.IntN(1000))
	}
	n := rng.IntN(5)
	recs := make([]string, n)
	for i := range recs {
		switch rng.IntN(20) {
		case 0:
			recs[i] = value(0)
		default:
			recs[i] = object(rng, sp, str, value, 0, true)
		}
	}
	items := "[" + sp() + strings.Join(recs, sp()+","+sp()) + sp() + "]"
	paging := `{"CurrentPage":1,"Pages":1,"Results":1,"TotalCount":1,"NextPage":null,"PreviousPage":` + sp() + `"p"}`
	members := []string{`"Items"` + sp() + ":" + sp() + items, `"Paging":` + paging}
	switch rng.IntN(12) {
	case 0:
		members = members[1:]
	case 1:
		members = append(members, `"Items":[]`)
	case 2:
		members = append([]string{`"Items":` + value(1)}, members...)
	case 3:
		members[0], members[1] = members[1], members[0]
	case 4:
		members = append(members, `"I\u0074ems":5`)
	}
	body := "{" + sp() + strings.Join(members, ","+sp()) + sp() + "}"
	if rng.IntN(30) == 0 {
		body = body[:rng.IntN(len(body))]
	}
	return body
}

// object is a JSON object; a record (rec) mostly has a GUID ID, sometimes
// two, a bad one or none.
func object(rng *rand.Rand, sp func() string, str func() string, value func(int) string, depth int, rec bool) string {
	var members []string
	if rec {
		id := fmt.Sprintf(`"%08x-1234-4abc-8def-%012x"`, rng.Uint32(), rng.Uint64()&0xffffffffffff)
		switch rng.IntN(15) {
		case 0:
			id = []string{"null", "5", `"nope"`, `{"a":1}`}[rng.IntN(4)]
		case 1:
			id = `"6F1C9A7E-2B3D-4C5E-8F90-A1B2C3D4E5F\u0036"`
		}
		if rng.IntN(15) != 0 {
			members = append(members, `"ID"`+sp()+":"+sp()+id)
		}
	}
	for range rng.IntN(6) {
		name := str()
		if rng.IntN(10) == 0 {
			name = `"ID"`
		}
		members = append(members, name+sp()+":"+sp()+value(depth))
	}
	rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + sp() + strings.Join(members, sp()+","+sp()) + sp() + "}"
}

// referenceDecode is the decoder before the scanner: gjson's Get and
// ForEach.
func referenceDecode(body string) (*Page, error) {
	if !gjson.Valid(body) {
		return nil, syntaxError([]byte(body))
	}
	root := gjson.Parse(body)
	if !root.IsObject() {
		return nil, badPage("the page is a JSON %s, not an object", kind(root))
	}
	paging, items := root.Get("Paging"), root.Get("Items")
	switch {
	case !paging.Exists() || paging.Type == gjson.Null:
		return nil, badPage("the page has no Paging object")
	case !paging.IsObject():
		return nil, badPage("Paging: want an object, got a JSON %s", kind(paging))
	case !items.Exists() || items.Type == gjson.Null:
		return nil, badPage("the page has no Items array")
	case !items.IsArray():
		return nil, badPage("Items: want an array, got a JSON %s", kind(items))
	}
	p := &Page{}
	if err := decodePaging(paging, &p.Paging); err != nil {
		return nil, err
	}
	var err error
	n := 0
	p.Records = make([]Record, 0, MaxPageSize)
	items.ForEach(func(_, it gjson.Result) bool {
		n++
		var r Record
		if err = referenceRecord(&r, it); err != nil {
			return false
		}
		p.Records = append(p.Records, r)
		return true
	})
	if err != nil {
		return p, badPage("record %d of %d: %v", n, len(items.Array()), err)
	}
	return p, nil
}

func referenceRecord(r *Record, it gjson.Result) error {
	if !it.IsObject() {
		return fmt.Errorf("not a JSON object: %s", snippet([]byte(it.Raw)))
	}
	r.Raw = it.Raw
	var id gjson.Result
	var twice error
	it.ForEach(func(k, v gjson.Result) bool {
		r.Fields = append(r.Fields, Field{Name: k.Str, Raw: v.Raw})
		if k.Str == "ID" && id.Exists() && twice == nil {
			twice = fmt.Errorf("the record sends ID twice: %s and %s", snippet([]byte(id.Raw)), snippet([]byte(v.Raw)))
		}
		if k.Str == "ID" {
			id = v
		}
		return true
	})
	switch {
	case twice != nil:
		return twice
	case !id.Exists() || id.Type == gjson.Null:
		return fmt.Errorf("the record has no ID: %s", snippet([]byte(it.Raw)))
	case id.Type != gjson.String:
		return fmt.Errorf("ID %s is not a string", snippet([]byte(id.Raw)))
	}
	r.ID = id.Str
	if _, ok := ParseGUID(r.ID); !ok {
		return fmt.Errorf("ID %q is not a GUID", r.ID)
	}
	return nil
}
