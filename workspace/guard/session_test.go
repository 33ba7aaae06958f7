package guard

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/access"
)

// loginCall is a login form's post.
func loginCall(name, token string, header map[string]string) call {
	return call{Method: http.MethodPost, Path: "/login", Body: url.Values{"name": {name}, "token": {token}, "next": {"/waivers"}}.Encode(),
		ContentType: "application/x-www-form-urlencoded", Header: header}
}

// logIn logs in and returns the session cookie ("name=value").
func logIn(t *testing.T, srv *httptest.Server, name, token string) string {
	t.Helper()
	a := do(t, srv, loginCall(name, token, nil))
	if a.Status != http.StatusSeeOther || a.Header.Get("Set-Cookie") == "" {
		t.Fatalf("login of %s: %d %s", name, a.Status, a.Body)
	}
	return strings.Split(a.Header.Get("Set-Cookie"), ";")[0]
}

// status is what GET /api/waivers answers with these headers.
func status(t *testing.T, srv *httptest.Server, header map[string]string) int {
	t.Helper()
	return do(t, srv, call{Path: "/api/waivers", Header: header}).Status
}

func withCookie(c string) map[string]string { return map[string]string{"Cookie": c} }
func withBearer(tok string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + tok}
}

// A token removed from the tokens file, or rotated, is refused a second
// later without a restart, and so are the sessions it opened; the new
// token logs in.
func TestARemovedOrRotatedTokenStops(t *testing.T) {
	t.Parallel()
	b := newBare()
	users := map[string]string{"ann": "ann-token-0123456789", "bob": "bob-token-0123456789"}
	path := tokensFile(t, users)
	srv := b.serve(t, func(o *Options) {
		o.Access = b.access(t, access.Config{Identity: access.Tokens, TokensFile: path})
	})
	annSession, bobSession := logIn(t, srv, "ann", users["ann"]), logIn(t, srv, "bob", users["bob"])
	for _, h := range []map[string]string{withCookie(annSession), withCookie(bobSession), withBearer(users["ann"]), withBearer(users["bob"])} {
		if got := status(t, srv, h); got != http.StatusOK {
			t.Fatalf("%v before the change: %d", h, got)
		}
	}
	rotated := tokensFile(t, map[string]string{"bob": "bob-token-rotated-0000"})
	if err := os.Rename(rotated, path); err != nil {
		t.Fatal(err)
	}
	b.later(access.Recheck)
	for _, h := range []map[string]string{withCookie(annSession), withCookie(bobSession), withBearer(users["ann"]), withBearer(users["bob"])} {
		if got := status(t, srv, h); got != http.StatusUnauthorized {
			t.Errorf("%v %s after the change: %d", h, access.Recheck, got)
		}
	}
	newSession := logIn(t, srv, "bob", "bob-token-rotated-0000")
	if got := status(t, srv, withCookie(newSession)); got != http.StatusOK {
		t.Errorf("the rotated token's session: %d", got)
	}
	if a := do(t, srv, loginCall("ann", users["ann"], nil)); a.Status != http.StatusUnauthorized {
		t.Errorf("ann's login after her removal: %d", a.Status)
	}
}

// A session ends at workspace.session_ttl; a logout (a POST with the
// page's CSRF token) ends it on the server and clears its cookie, and the
// pages' header offers it.
func TestSessionsExpireAndLogOut(t *testing.T) {
	t.Parallel()
	b := newBare()
	srv := b.serve(t, func(o *Options) { o.Token, o.SessionTTL = sharedToken, 2*time.Hour })
	s := logIn(t, srv, "", sharedToken)
	b.later(2*time.Hour - time.Second)
	if got := status(t, srv, withCookie(s)); got != http.StatusOK {
		t.Fatalf("a second before the end: %d", got)
	}
	b.later(time.Second)
	if got := status(t, srv, withCookie(s)); got != http.StatusUnauthorized {
		t.Errorf("at its end: %d", got)
	}

	s = logIn(t, srv, "", sharedToken)
	page := do(t, srv, call{Path: "/waivers", Header: withCookie(s)})
	csrf := regexp.MustCompile(`action="/logout"[^>]*><input type="hidden" name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page.Body)
	if page.Status != http.StatusOK || csrf == nil {
		t.Fatalf("the page offers no logout: %d\n%s", page.Status, page.Body)
	}
	logout := func(csrf string) answer {
		return do(t, srv, call{Method: http.MethodPost, Path: "/logout", Body: url.Values{"csrf": {csrf}}.Encode(),
			ContentType: "application/x-www-form-urlencoded", Header: withCookie(s)})
	}
	if a := logout("stale"); a.Status != http.StatusForbidden || status(t, srv, withCookie(s)) != http.StatusOK {
		t.Fatalf("a logout without the CSRF sharedToken: %d", a.Status)
	}
	a := logout(csrf[1])
	if a.Status != http.StatusSeeOther || a.Header.Get("Location") != "/login" || !strings.Contains(a.Header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("the logout: %d to %q, cookie %q", a.Status, a.Header.Get("Location"), a.Header.Get("Set-Cookie"))
	}
	if got := status(t, srv, withCookie(s)); got != http.StatusUnauthorized {
		t.Errorf("the cookie after its logout: %d", got)
	}
}

// The session cookie is Secure over TLS, and behind a trusted proxy that
// says https; not for the header from an address that is not a proxy.
func TestTheCookieIsSecureOverTLS(t *testing.T) {
	t.Parallel()
	b := newBare()
	tlsSrv := httptest.NewTLSServer(b.guarded(t, func(o *Options) { o.Token = sharedToken }))
	t.Cleanup(tlsSrv.Close)
	if c := cookieOf(t, tlsSrv, sharedToken, nil); !strings.Contains(c, "; Secure") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") {
		t.Errorf("over TLS: %q", c)
	}
	for proxy, secure := range map[string]bool{"127.0.0.1": true, "10.9.8.7": false} {
		srv := b.serve(t, func(o *Options) {
			o.Token = sharedToken
			o.Access = b.access(t, access.Config{Proxies: []string{proxy}})
		})
		c := cookieOf(t, srv, sharedToken, map[string]string{"X-Forwarded-Proto": "https"})
		if strings.Contains(c, "; Secure") != secure {
			t.Errorf("X-Forwarded-Proto: https with workspace.proxies %s: %q", proxy, c)
		}
	}
}

// cookieOf logs in to srv with token and returns the Set-Cookie.
func cookieOf(t *testing.T, srv *httptest.Server, token string, header map[string]string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	return resp.Header.Get("Set-Cookie")
}
