package fix

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/fix"
	"github.com/billsnap/billsnap/layout"
)

// writeProxy stands between billsnap and the sandbox: it passes every
// request on, counts the writes, and for the write numbered drop, passes
// it on and then closes the connection without an answer, as a reset
// after the service made the write does.
type writeProxy struct {
	target string
	drop   int64
	puts   atomic.Int64
}

func (p *writeProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req, _ := http.NewRequest(r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header, req.Host = r.Header.Clone(), r.Host
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if r.Method == http.MethodPut && p.puts.Add(1) == p.drop {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// checkReadBack checks a write whose answer never came (proxy dropped
// it) was read back before anything was sent again: the service had made
// it, so it was not sent a second time; the record says what happened and
// holds no key. actions is the number of the plan's writes.
func checkReadBack(t *testing.T, proxy *writeProxy, dir string, actions int) {
	t.Helper()
	if got := proxy.puts.Load(); got != int64(actions) || actions < 2 {
		t.Fatalf("%d writes reached the service for %d actions: a write with no answer was sent again", got, actions)
	}
	events := recordOf(t, dir)
	var unknown, readBack int
	for _, e := range events {
		switch {
		case e.Event == fix.EvUnknown:
			unknown++
		case e.Event == fix.EvReadBack && e.Outcome == fix.Done:
			readBack++
		}
		if strings.Contains(e.URL+e.Request+e.Response+e.Note, e2etest.ExportKey) {
			t.Errorf("the record holds the key: %+v", e)
		}
	}
	if unknown != 1 || readBack != 1 {
		t.Fatalf("the record: %d unknown fates, %d read back as made; want 1 and 1\n%+v", unknown, readBack, events)
	}
}

// recordOf is the record of writes of the store at dir.
func recordOf(t *testing.T, dir string) []fix.Event {
	t.Helper()
	lines, err := os.ReadFile(layout.Dir(dir).Fixes())
	if err != nil {
		t.Fatal(err)
	}
	var out []fix.Event
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var e fix.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// newProxyServer serves p on a loopback port until the test ends and
// returns its URL.
func newProxyServer(t *testing.T, p *writeProxy) string {
	t.Helper()
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return ps.URL
}
