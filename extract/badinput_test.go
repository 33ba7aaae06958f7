package extract

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const goodID = `"6f1c9a7e-2b3d-4c5e-8f90-a1b2c3d4e5f6"`

// page1 is a one-page envelope around items with the given paging fields.
func page1(items, paging string) string {
	return `{"Items":[` + items + `],"Paging":{` + paging + `}}`
}

const onePaging = `"CurrentPage":1,"Pages":1,"Results":1,"TotalCount":1,"NextPage":null,"PreviousPage":null`

// badResponses are answers to a page request that must be refused with a
// clear error, naming what is wrong.
var badResponses = []struct {
	name, contentType string
	status            int
	body, want        string
}{
	{"not JSON at all", "application/json", 200, `not json`, "malformed JSON at byte 2"},
	{"syntax error inside", "application/json", 200, `{"Items":[{"ID":` + goodID + `,}]}`, "malformed JSON at byte"},
	{"no Paging", "application/json", 200, `{"Items":[]}`, "no Paging object"},
	{"no Items", "application/json", 200, `{"Paging":{` + onePaging + `}}`, "no Items array"},
	{"TotalCount missing", "application/json", 200, page1(`{"ID":`+goodID+`}`, `"CurrentPage":1,"Pages":1,"Results":1`), "Paging.TotalCount is missing"},
	{"CurrentPage a string", "application/json", 200, page1(`{"ID":`+goodID+`}`, `"CurrentPage":"1","Pages":1,"Results":1,"TotalCount":1`), "Paging.CurrentPage: want a whole number, got a JSON string"},
	{"TotalCount fractional", "application/json", 200, page1(`{"ID":`+goodID+`}`, `"CurrentPage":1,"Pages":1,"Results":1,"TotalCount":1.5`), "Paging.TotalCount: want a whole number, got a JSON number 1.5"},
	{"Items an object", "application/json", 200, `{"Items":{},"Paging":{` + onePaging + `}}`, "Items: want an array, got a JSON object"},
	{"Paging an array", "application/json", 200, `{"Items":[],"Paging":[]}`, "Paging: want an object, got a JSON array"},
	{"NextPage a number", "application/json", 200, page1(`{"ID":`+goodID+`}`, `"CurrentPage":1,"Pages":1,"Results":1,"TotalCount":1,"NextPage":5`), "Paging.NextPage: want a string or null, got a JSON number"},
	{"Results too high", "application/json", 200, page1(`{"ID":`+goodID+`}`, `"CurrentPage":1,"Pages":1,"Results":2,"TotalCount":1`), "Paging.Results is 2 but the page carries 1 records"},
	{"wrong CurrentPage", "application/json", 200, page1(`{"ID":`+goodID+`}`, `"CurrentPage":2,"Pages":1,"Results":1,"TotalCount":1`), "Paging.CurrentPage is 2 on the page asked for as page 1"},
	{"record not an object", "application/json", 200, page1(`5`, onePaging), "record 1 of 1: not a JSON object"},
	{"record without ID", "application/json", 200, page1(`{"FullName":"x"}`, onePaging), "record 1 of 1: the record has no ID"},
	{"record with null ID", "application/json", 200, page1(`{"ID":null}`, onePaging), "the record has no ID"},
	{"ID a number", "application/json", 200, page1(`{"ID":42}`, onePaging), `ID "42" is not a string`},
	{"ID not a GUID", "application/json", 200, page1(`{"ID":"abc"}`, onePaging), `ID "abc" is not a GUID`},
	{"HTML with 200", "text/html", 200, `<!DOCTYPE html><html>Sign in</html>`, `the response is text/html, not JSON: "<!DOCTYPE html>`},
	{"JSON sent as text/plain", "text/plain", 200, page1(`{"ID":`+goodID+`}`, onePaging), "the response is text/plain, not JSON"},
	{"no content type", "", 200, page1(`{"ID":`+goodID+`}`, onePaging), "the response is no content type, not JSON"},
	{"404 error body", "application/json", 404, `{"Type":"request_error","Message":"No such list","Errorcode":24000,"Httpstatuscode":404,"Helplink":"https://h/24000/"}`, "HTTP 404, Errorcode 24000 (Customer, Entity Not Found): No such list (help: https://h/24000/)"},
	{"400 HTML body", "text/html", 400, `<html>Bad request</html>`, `HTTP 400: the body is not an error of the service (text/html): "<html>Bad request</html>"`},
	{"always truncated", "application/json", 200, `{"Items":[{"ID":` + goodID, "gave up after 6 attempts: the body ends before its JSON does"},
	{"empty body", "application/json", 200, ``, "gave up after 6 attempts"},
}

func TestBadResponsesAreRefusedClearly(t *testing.T) {
	for _, tc := range badResponses {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				} else {
					w.Header()["Content-Type"] = nil
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			w := newWalker(t, srv.URL, srv.URL, testKey, newFakeClock(), 4)
			_, err := w.Walk(context.Background(), collection(t, "customers"), &memSink{})
			var pe *PageError
			if !errors.As(err, &pe) || pe.Page != 1 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant a PageError for page 1 containing %q", err, tc.want)
			}
			if want := "collection customers, page 1, GET " + srv.URL + "/Customers/?page=1: "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start with %q", err, want)
			}
		})
	}
	if len(badResponses) < 20 {
		t.Errorf("only %d bad responses", len(badResponses))
	}
}

func TestParseErrorcode(t *testing.T) {
	for code, want := range map[int][3]int{27000: {2, 7000, 1}, 85000: {8, 5000, 1}, 137000: {13, 7000, 1}, 4000: {0, 4000, 1},
		22000: {2, 2000, 1}, 29000: {2, 9000, 0}, 999: {0, 0, 0}, -27000: {0, 0, 0}} {
		o, ty, ok := ParseErrorcode(code)
		if ok != (want[2] == 1) || (ok && (o != want[0] || ty != want[1])) {
			t.Errorf("ParseErrorcode(%d) = %d, %d, %v", code, o, ty, ok)
		}
	}
}

func TestRedaction(t *testing.T) {
	s := NewSecret("sk_live_abcdef")
	msg := s.Redact("key sk_live_abcdef, header Bearer c2tfbGl2ZV9hYmNkZWY=, raw c2tfbGl2ZV9hYmNkZWY")
	if strings.Contains(msg, "abcdef") || strings.Contains(msg, "c2tfbGl2ZV9hYmNkZWY") {
		t.Errorf("not redacted: %s", msg)
	}
	for in, want := range map[string]string{
		"https://h/Customers/?page=2&api_key=s3cret": "https://h/Customers/?api_key=REDACTED&page=2",
		"https://u:pw@h/x?token=t&sig=1":             "https://REDACTED@h/x?sig=REDACTED&token=REDACTED",
		"https://h/Customers/?page=2":                "https://h/Customers/?page=2",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%s) = %s, want %s", in, got, want)
		}
	}
}
