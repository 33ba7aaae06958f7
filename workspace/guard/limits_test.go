package guard

import (
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/billsnap/billsnap/access"
)

// counting is a body of n bytes made as it is read, counting what was.
type counting struct {
	n, read atomic.Int64
	prefix  string
}

func (c *counting) Read(p []byte) (int, error) {
	done := c.read.Load()
	if done >= c.n.Load() {
		return 0, io.EOF
	}
	k := min(int64(len(p)), c.n.Load()-done)
	for i := range p[:k] {
		if off := done + int64(i); off < int64(len(c.prefix)) {
			p[i] = c.prefix[off]
		} else {
			p[i] = 'a'
		}
	}
	c.read.Add(k)
	return int(k), nil
}

func newCounting(n int64, prefix string) *counting {
	c := &counting{prefix: prefix}
	c.n.Store(n)
	return c
}

const sharedToken = "shared-token-0123456789"

// countingListener counts the bytes the server reads from its
// connections.
type countingListener struct {
	net.Listener
	read atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return &countingConn{Conn: c, read: &l.read}, err
}

type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// post sends body to path with its type and the shared token, declaring
// its length or not (chunked), and returns the status and how much of it
// the client sent.
func post(t *testing.T, srv *httptest.Server, path, contentType string, body *counting, declared bool) (int, int64) {
	t.Helper()
	var r io.Reader = body
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, r)
	if declared {
		req.ContentLength = body.n.Load()
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+sharedToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		return 0, body.read.Load()
	}
	resp.Body.Close()
	return resp.StatusCode, body.read.Load()
}

// A 200 MB login, declared, chunked or multipart, is refused (413) before
// 10 MB of it is read by the server, and so is a body over the limit of
// any other route, from a client that shows the token.
func TestBodiesAreLimited(t *testing.T) {
	t.Parallel()
	b := newBare()
	srv := httptest.NewUnstartedServer(b.guarded(t, func(o *Options) { o.Token = sharedToken }))
	counted := &countingListener{Listener: srv.Listener}
	srv.Listener = counted
	srv.Start()
	t.Cleanup(srv.Close)
	const big = 200 << 20
	mp := multipart.NewWriter(io.Discard)
	head := "--" + mp.Boundary() + "\r\nContent-Disposition: form-data; name=\"token\"; filename=\"t\"\r\n\r\n"
	for _, c := range []struct {
		name, path, contentType, prefix string
		declared                        bool
		n                               int64
	}{
		{"a declared login", "/login", "application/x-www-form-urlencoded", "token=", true, big},
		{"a chunked login", "/login", "application/x-www-form-urlencoded", "token=", false, big},
		{"a multipart login", "/login", mp.FormDataContentType(), head, false, big},
		{"a declared multipart login", "/login", mp.FormDataContentType(), head, true, big},
		{"a JSON waiver", "/api/waivers", "application/json", `{"reason":"`, true, 1 << 20},
		{"a chunked form", "/waivers", "application/x-www-form-urlencoded", "reason=", false, 1 << 20},
	} {
		body := newCounting(c.n, c.prefix)
		before := counted.read.Load()
		code, sent := post(t, srv, c.path, c.contentType, body, c.declared)
		read := counted.read.Load() - before
		t.Logf("%s: %d; the client sent %d bytes (to the sockets' buffers), the server read %d", c.name, code, sent, read)
		if (code != http.StatusRequestEntityTooLarge && code != 0) || read >= 10<<20 {
			t.Errorf("%s of %d bytes: %d, the server read %d bytes", c.name, c.n, code, read)
		}
	}
}

// Wrong logins wait (429, Retry-After) after loginFailures of them from
// an address, even with the right token then; and after loginFailures
// for a user, from any address; a right login from another address for
// another user still gets in, as does a bearer from another address.
func TestLoginsAreRateLimited(t *testing.T) {
	t.Parallel()
	b := newBare()
	users := map[string]string{"ann": "ann-token-0123456789", "bob": "bob-token-0123456789", "carol": "carol-token-0123456789"}
	path := tokensFile(t, users)
	srv := b.serve(t, func(o *Options) {
		o.Access = b.access(t, access.Config{Identity: access.Tokens, TokensFile: path, Proxies: []string{"127.0.0.1"}})
	})
	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }
	for range loginFailures {
		if a := do(t, srv, loginCall("ann", "wrong", from("192.0.2.1"))); a.Status != http.StatusUnauthorized {
			t.Fatalf("a wrong login: %d", a.Status)
		}
	}
	a := do(t, srv, loginCall("carol", users["carol"], from("192.0.2.1")))
	if a.Status != http.StatusTooManyRequests || a.Header.Get("Retry-After") != "60" {
		t.Errorf("a right login from the address of %d wrong ones: %d, Retry-After %q", loginFailures, a.Status, a.Header.Get("Retry-After"))
	}
	bearer := map[string]string{"Authorization": "Bearer " + users["carol"], "X-Forwarded-For": "192.0.2.1"}
	if got := status(t, srv, bearer); got != http.StatusTooManyRequests {
		t.Errorf("a bearer from that address: %d", got)
	}
	for i := range loginFailures {
		do(t, srv, loginCall("bob", "wrong", from(fmt.Sprintf("198.51.100.%d", i))))
	}
	if a := do(t, srv, loginCall("bob", users["bob"], from("203.0.113.1"))); a.Status != http.StatusTooManyRequests {
		t.Errorf("bob's right login after %d wrong ones for him: %d", loginFailures, a.Status)
	}
	if a := do(t, srv, loginCall("carol", users["carol"], from("203.0.113.2"))); a.Status != http.StatusSeeOther {
		t.Errorf("carol from another address: %d %s", a.Status, a.Body)
	}
	b.later(loginWindow)
	if a := do(t, srv, loginCall("bob", users["bob"], from("192.0.2.1"))); a.Status != http.StatusSeeOther {
		t.Errorf("bob, a window later: %d", a.Status)
	}
}

// An attacker rotating addresses cannot grow the limiter past maxLimited.
func TestTheLimiterIsBounded(t *testing.T) {
	t.Parallel()
	b := newBare()
	l := newLimiter(b.clock.Now)
	for i := range 3 * maxLimited {
		l.fail(strconv.Itoa(i))
	}
	if len(l.m) > maxLimited {
		t.Errorf("%d keys remembered", len(l.m))
	}
}
