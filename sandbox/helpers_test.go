package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const testKey = "test-key"

// start serves a sandbox over real HTTP for one test.
func start(t *testing.T, o Options, faults string) *Server {
	t.Helper()
	f, err := ParseFaults(faults)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start("127.0.0.1:0", New(Config{Data: o, APIKey: testKey, Faults: f}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// call is one request: path is relative to the server unless absolute.
type call struct {
	method, path, body string
	noAuth, noVersion  bool
	auth               string // replaces the Authorization header when set
}

type response struct {
	status int
	header http.Header
	body   []byte
	err    error // transport or body read error
}

func (s *Server) do(t *testing.T, c call) response {
	t.Helper()
	url := c.path
	if !strings.HasPrefix(url, "http") {
		url = s.URL + c.path
	}
	req, err := http.NewRequest(cmpOr(c.method, http.MethodGet), url, bytes.NewBufferString(c.body))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case c.auth != "":
		req.Header.Set("Authorization", c.auth)
	case !c.noAuth:
		req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte(testKey)))
	}
	if !c.noVersion {
		req.Header.Set("x-version", "nxt")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// page is a decoded list envelope.
type page struct {
	Items  []map[string]any
	Paging Paging
}

func (r response) page(t *testing.T) page {
	t.Helper()
	var p page
	if r.err != nil || r.status != http.StatusOK {
		t.Fatalf("want a page, got status %d err %v body %.300s", r.status, r.err, r.body)
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("page does not decode: %v: %.300s", err, r.body)
	}
	return p
}

func (r response) apiError(t *testing.T) ErrorBody {
	t.Helper()
	var e ErrorBody
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("error body does not decode: %v (status %d): %.300s", err, r.status, r.body)
	}
	return e
}

// wantError checks the status, the Errorcode and the whole shape of spec §7.
func (s *Server) wantError(t *testing.T, r response, status, code int, msgHas string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %.300s", r.status, status, r.body)
	}
	e := r.apiError(t)
	if e.Errorcode != code || e.Httpstatuscode != status || e.Type != "request_error" {
		t.Errorf("error body %+v, want Errorcode %d Httpstatuscode %d Type request_error", e, code, status)
	}
	if !strings.HasPrefix(e.Helplink, s.URL+"/help/"+itoa(code)+"/") {
		t.Errorf("Helplink %q does not start with {help_url}/%d/", e.Helplink, code)
	}
	if !strings.Contains(e.Message, msgHas) {
		t.Errorf("Message %q does not contain %q", e.Message, msgHas)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func str(v any) string { s, _ := v.(string); return s }
