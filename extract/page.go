package extract

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/billsnap/billsnap/internal/jsontext"
	"github.com/tidwall/gjson"
)

// MaxPageSize is the most records a page may carry (spec §8).
const MaxPageSize = 100

// Page is one decoded page of a list.
type Page struct {
	URL     string // as requested
	Paging  Paging
	Records []Record
}

// Paging is the page's Paging object; NextPage and PreviousPage are "" when
// null, empty or absent.
type Paging struct {
	CurrentPage, Pages, Results, TotalCount int
	NextPage, PreviousPage                  string
}

// Record is one item of a page: its ID, its JSON as sent, and its
// top-level fields. Raw and the fields' Raw are views into the page's body.
type Record struct {
	ID     string // a GUID in the 36-character form
	Raw    string
	Fields []Field
}

// Field is a top-level field of a record, its value as JSON text.
type Field struct {
	Name string
	Raw  string // "null" for null
}

// Field returns the JSON of the field called name, or "" when absent.
func (r *Record) Field(name string) string { return FieldOf(r.Fields, name) }

// FieldOf returns the JSON of the field called name in fields, or "".
func FieldOf(fields []Field, name string) string {
	for _, f := range fields {
		if f.Name == name {
			return f.Raw
		}
	}
	return ""
}

// GUID is a parsed identifier; two spellings of one GUID (case) are equal.
type GUID [16]byte

// ParseGUID reads the 36-character form 8-4-4-4-12 of hex digits.
func ParseGUID(s string) (GUID, bool) {
	var g GUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, false
	}
	n := 0 // hex digits read
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue
		}
		d, ok := hexDigit(s[i])
		if !ok {
			return GUID{}, false
		}
		g[n/2] |= d << (4 * (1 - n%2))
		n++
	}
	return g, true
}

// hexDigit is the value of the hex digit c (either case).
func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// BadPageError is a page that breaks the interface's contract.
type BadPageError struct{ Msg string }

func (e *BadPageError) Error() string { return e.Msg }

func badPage(format string, args ...any) error {
	return &BadPageError{Msg: fmt.Sprintf(format, args...)}
}

// DecodePage reads a list envelope: Items (an array of objects, each with a
// GUID ID) and Paging (CurrentPage, Pages, Results and TotalCount whole
// numbers; NextPage and PreviousPage strings or null). The body is
// validated once and then scanned once. The page's views are into a copy
// of body: the caller may reuse body.
func DecodePage(body []byte) (*Page, error) {
	return decodePage(string(body))
}

// valid tells whether body is JSON: by gjson, or, for a body nested
// deeper than jsontext.MaxDepth, by jsontext.Valid, which does not recurse
// (gjson's validator grew the stack by a frame a level: seconds and
// hundreds of MB for a value a million levels deep).
func valid(body string) bool {
	if jsontext.TooDeep(body, jsontext.MaxDepth) {
		return jsontext.Valid(body)
	}
	return gjson.Valid(body)
}

// decodeOwned is DecodePage without the copy: the page's views are into
// body itself, which nobody may change afterwards. The client reads each
// body into a buffer of its own and hands it over; the copy would double
// what a page costs while its rows wait to be written.
func decodeOwned(body []byte) (*Page, error) {
	return decodePage(unsafe.String(unsafe.SliceData(body), len(body)))
}

func decodePage(body string) (*Page, error) {
	if !valid(body) {
		return nil, syntaxError([]byte(body))
	}
	if i := skipSpace(body, 0); body[i] != '{' {
		return nil, badPage("the page is a JSON %s, not an object", kind(gjson.Parse(body)))
	}
	p := &Page{}
	pagingRaw, itemsRaw, itemsErr := p.readRoot(body)
	paging, items := gjson.Parse(pagingRaw), gjson.Parse(itemsRaw)
	switch {
	case pagingRaw == "" || paging.Type == gjson.Null:
		return nil, badPage("the page has no Paging object")
	case !paging.IsObject():
		return nil, badPage("Paging: want an object, got a JSON %s", kind(paging))
	case itemsRaw == "" || items.Type == gjson.Null:
		return nil, badPage("the page has no Items array")
	case !items.IsArray():
		return nil, badPage("Items: want an array, got a JSON %s", kind(items))
	}
	if err := decodePaging(paging, &p.Paging); err != nil {
		return nil, err
	}
	return p, itemsErr
}

// readRoot reads the members of the page's object (body, valid JSON),
// the first Paging's and Items' text ("" when absent); an Items array's
// records are decoded into p as it is read, and err is the first record
// that could not be.
func (p *Page) readRoot(body string) (paging, items string, err error) {
	i := skipSpace(body, skipSpace(body, 0)+1)
	for i < len(body) && body[i] == '"' {
		kend, _ := stringEnd(body, i)
		name := stringValue(body[i:kend])
		i = skipSpace(body, skipSpace(body, kend)+1)
		var end int
		switch {
		case name == "Items" && items == "" && body[i] == '[':
			end, err = p.decodeItems(body, i)
			items = body[i:end]
		default:
			end = valueEnd(body, i)
			if name == "Items" && items == "" {
				items = body[i:end]
			} else if name == "Paging" && paging == "" {
				paging = body[i:end]
			}
		}
		i = skipSpace(body, end)
		if i < len(body) && body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	return paging, items, err
}

// decodeItems decodes the records of the Items array at body[at:]; end is
// where the array ends. Their fields share one slice, each record a
// window of it: a page of 100 records of 20 fields then allocates a few
// growing slices rather than a handful per record.
func (p *Page) decodeItems(body string, at int) (end int, err error) {
	n := 0
	p.Records = make([]Record, 0, MaxPageSize)
	end, _ = elements(body, at, make([]Field, 0, firstFields), MaxPageSize, func(it string, fields []Field) bool {
		n++
		r := Record{Raw: it, Fields: fields}
		if err = checkRecord(&r); err != nil {
			return false
		}
		p.Records = append(p.Records, r)
		return true
	})
	if err != nil {
		end = nestedEnd(body, at)
		count := 0
		Elements(body[at:end], nil, func(string, []Field) bool { count++; return true })
		return end, badPage("record %d of %d: %v", n, count, err)
	}
	return end, nil
}

// firstFields is the room the page's fields start with.
const firstFields = 64

// checkRecord checks an item, r.Raw with its fields, is a record and sets
// its ID.
func checkRecord(r *Record) error {
	if r.Raw[0] != '{' {
		return fmt.Errorf("not a JSON object: %s", snippet([]byte(r.Raw)))
	}
	id := ""
	for _, f := range r.Fields {
		if f.Name == "ID" && id != "" {
			return fmt.Errorf("the record sends ID twice: %s and %s", snippet([]byte(id)), snippet([]byte(f.Raw)))
		}
		if f.Name == "ID" {
			id = f.Raw
		}
	}
	switch {
	case id == "" || id == "null":
		return fmt.Errorf("the record has no ID: %s", snippet([]byte(r.Raw)))
	case id[0] != '"':
		return fmt.Errorf("ID %s is not a string", snippet([]byte(id)))
	}
	r.ID = stringValue(id)
	if _, ok := ParseGUID(r.ID); !ok {
		return fmt.Errorf("ID %q is not a GUID", r.ID)
	}
	return nil
}

func decodePaging(v gjson.Result, p *Paging) error {
	for _, f := range []struct {
		name string
		dst  *int
	}{{"CurrentPage", &p.CurrentPage}, {"Pages", &p.Pages}, {"Results", &p.Results}, {"TotalCount", &p.TotalCount}} {
		n := v.Get(f.name)
		if !n.Exists() || n.Type == gjson.Null {
			return badPage("Paging.%s is missing", f.name)
		}
		i, err := strconv.Atoi(n.Raw)
		if n.Type != gjson.Number || err != nil {
			return badPage("Paging.%s: want a whole number, got a JSON %s %s", f.name, kind(n), n.Raw)
		}
		*f.dst = i
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"NextPage", &p.NextPage}, {"PreviousPage", &p.PreviousPage}} {
		switch n := v.Get(f.name); n.Type {
		case gjson.String:
			// A copy: a view would keep the whole page body alive as
			// long as the walker remembers the URL.
			*f.dst = strings.Clone(strings.TrimSpace(n.Str))
		case gjson.Null:
		default:
			return badPage("Paging.%s: want a string or null, got a JSON %s", f.name, kind(n))
		}
	}
	return nil
}

// kind names a JSON value's type for a message.
func kind(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "object"
	case v.IsArray():
		return "array"
	}
	return map[gjson.Type]string{gjson.Null: "null", gjson.False: "boolean", gjson.True: "boolean", gjson.Number: "number", gjson.String: "string"}[v.Type]
}

// truncatedJSON marks a body that ended before its JSON did: retried like a
// connection cut short.
var truncatedJSON = errors.New("the body ends before its JSON does")

// syntaxError describes a body that is not JSON, with encoding/json's
// words and offset.
func syntaxError(body []byte) error {
	var v any
	err := json.Unmarshal(body, &v)
	var syn *json.SyntaxError
	switch {
	case err == nil:
		return badPage("malformed JSON")
	case err.Error() == "unexpected end of JSON input":
		return truncatedJSON
	case errors.As(err, &syn):
		return badPage("malformed JSON at byte %d: %v", syn.Offset, syn)
	}
	return badPage("malformed JSON: %v", err)
}
