package extract

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodePage: any body either decodes to a page that keeps the
// decoder's promises, or is refused with a *BadPageError (or as truncated,
// to be retried); it never panics.
// Seeds: the bad-input table, a good page, and testdata/fuzz/FuzzDecodePage.
// CI runs it for a bounded time (.ci/run).
func FuzzDecodePage(f *testing.F) {
	for _, b := range badResponses {
		f.Add([]byte(b.body))
	}
	f.Add([]byte(page1(`{"ID":`+goodID+`,"Name":"a","Amount":1.5,"Lines":[{"X":1}]}`, onePaging)))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := DecodePage(body)
		if err != nil {
			var bad *BadPageError
			if !errors.As(err, &bad) && !errors.Is(err, truncatedJSON) || err.Error() == "" {
				t.Fatalf("refused without a BadPageError: %T %v", err, err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("decoded a body encoding/json calls invalid: %q", body)
		}
		for _, r := range p.Records {
			if _, ok := ParseGUID(r.ID); !ok {
				t.Fatalf("record ID %q is not a GUID", r.ID)
			}
			if !json.Valid([]byte(r.Raw)) || !strings.HasPrefix(r.Raw, "{") {
				t.Fatalf("record raw is not a JSON object: %q", r.Raw)
			}
			for _, fd := range r.Fields {
				if !json.Valid([]byte(fd.Raw)) {
					t.Fatalf("field %s is not JSON: %q", fd.Name, fd.Raw)
				}
			}
		}
	})
}

// FuzzErrorBody: any error answer is described in one bounded, valid UTF-8
// message, and a parsed Errorcode is the code it came from.
func FuzzErrorBody(f *testing.F) {
	f.Add(401, []byte(`{"Type":"request_error","Message":"Authentication Failure","Errorcode":27000,"Httpstatuscode":401,"Helplink":"https://h/27000/"}`))
	f.Add(500, []byte(`<html>oops</html>`))
	f.Add(404, []byte(`{"Errorcode":-17000}`))
	f.Add(400, []byte("\xff\xfe{\"Message\":\"\xc3\"}"))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := decodeAPIError(status, "application/json", body)
		msg := e.Error()
		if msg == "" || !utf8.ValidString(snippet(body)) {
			t.Fatalf("message %q for %q", msg, body)
		}
		if obj, typ, ok := ParseErrorcode(e.Errorcode); ok {
			if obj*10000+typ != e.Errorcode || TypeNames[typ] == "" {
				t.Fatalf("Errorcode %d parsed as %d/%d", e.Errorcode, obj, typ)
			}
		}
	})
}
