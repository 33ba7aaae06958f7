package extract

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// readBody reads a body whole, into one buffer when the length is known,
// and reports a body cut short of its Content-Length as the transport's
// io.ErrUnexpectedEOF (which the client classifies as a transport error,
// retried: TestRetriesThroughFaults walks through truncated bodies).
func TestReadBody(t *testing.T) {
	page := strings.Repeat("x", 70_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sized":
			w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		case "/short":
			w.Header().Set("Content-Length", strconv.Itoa(len(page)+10))
		case "/chunked": // a flush before the end: no Content-Length
			w.Write([]byte(page[:10]))
			w.(http.Flusher).Flush()
			w.Write([]byte(page[10:]))
			return
		}
		w.Write([]byte(page))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		path   string
		length int64
		short  bool
		maxCap int
	}{
		{"/sized", int64(len(page)), false, len(page) + 1},
		{"/chunked", -1, false, 2 * len(page)},
		{"/short", int64(len(page) + 10), true, 0},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := readBody(resp)
		resp.Body.Close()
		if resp.ContentLength != tc.length {
			t.Fatalf("%s: Content-Length %d, want %d", tc.path, resp.ContentLength, tc.length)
		}
		if tc.short {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%s: a body cut short read as %d bytes, err %v", tc.path, len(body), err)
			}
			continue
		}
		if err != nil || string(body) != page || cap(body) > tc.maxCap {
			t.Errorf("%s: %d bytes (cap %d), err %v", tc.path, len(body), cap(body), err)
		}
	}
}
