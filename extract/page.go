package extract

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// Record is one item of a page: its ID, its bytes as sent, and its
// top-level fields.
type Record struct {
	ID     string
	GUID   GUID
	Raw    json.RawMessage
	Fields map[string]json.RawMessage
}

// GUID is a parsed identifier; two spellings of one GUID (case) are equal.
type GUID [16]byte

// ParseGUID reads the 36-character form 8-4-4-4-12 of hex digits.
func ParseGUID(s string) (GUID, bool) {
	var g GUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, false
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	_, err := hex.Decode(g[:], []byte(h))
	return g, err == nil
}

// BadPageError is a page that breaks the interface's contract.
type BadPageError struct{ Msg string }

func (e *BadPageError) Error() string { return e.Msg }

func badPage(format string, args ...any) error {
	return &BadPageError{Msg: fmt.Sprintf(format, args...)}
}

// DecodePage reads a list envelope: Items (an array of objects, each with a
// GUID ID) and Paging (CurrentPage, Pages, Results and TotalCount numbers;
// NextPage and PreviousPage strings or null).
func DecodePage(body []byte) (*Page, error) {
	var wire struct {
		Items  *[]json.RawMessage
		Paging *struct {
			CurrentPage, Pages, Results, TotalCount *int
			NextPage, PreviousPage                  *string
		}
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, jsonError(err)
	}
	switch {
	case wire.Paging == nil:
		return nil, badPage("the page has no Paging object")
	case wire.Items == nil:
		return nil, badPage("the page has no Items array")
	}
	wp := wire.Paging
	for name, v := range map[string]*int{"CurrentPage": wp.CurrentPage, "Pages": wp.Pages, "Results": wp.Results, "TotalCount": wp.TotalCount} {
		if v == nil {
			return nil, badPage("Paging.%s is missing", name)
		}
	}
	p := &Page{Paging: Paging{CurrentPage: *wp.CurrentPage, Pages: *wp.Pages, Results: *wp.Results, TotalCount: *wp.TotalCount,
		NextPage: strings.TrimSpace(deref(wp.NextPage)), PreviousPage: deref(wp.PreviousPage)}}
	p.Records = make([]Record, len(*wire.Items))
	for i, raw := range *wire.Items {
		if err := decodeRecord(&p.Records[i], raw); err != nil {
			return nil, badPage("record %d of %d: %v", i+1, len(*wire.Items), err)
		}
	}
	return p, nil
}

func decodeRecord(r *Record, raw json.RawMessage) error {
	if err := json.Unmarshal(raw, &r.Fields); err != nil || r.Fields == nil {
		return fmt.Errorf("not a JSON object: %s", snippet(raw))
	}
	idRaw, ok := r.Fields["ID"]
	if !ok || string(idRaw) == "null" {
		return fmt.Errorf("the record has no ID: %s", snippet(raw))
	}
	if json.Unmarshal(idRaw, &r.ID) != nil {
		return fmt.Errorf("ID %s is not a string", snippet(idRaw))
	}
	if r.GUID, ok = ParseGUID(r.ID); !ok {
		return fmt.Errorf("ID %q is not a GUID", r.ID)
	}
	r.Raw = raw
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// truncatedJSON marks a body that ended before its JSON did: retried like a
// connection cut short.
var truncatedJSON = errors.New("the body ends before its JSON does")

// jsonError describes a body that is not the JSON of a page.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err.Error() == "unexpected end of JSON input":
		return truncatedJSON
	case errors.As(err, &syn):
		return badPage("malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		return badPage("%s: want %s, got a JSON %s", strings.TrimPrefix(typ.Field, "."), typeWord(typ.Type.String()), typ.Value)
	}
	return badPage("malformed JSON: %v", err)
}

func typeWord(goType string) string {
	switch strings.TrimLeft(goType, "*[]") {
	case "int":
		return "a whole number"
	case "string":
		return "a string or null"
	case "json.RawMessage":
		return "an array"
	}
	return "an object"
}
