package workspace

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// A next that a browser normalises to another origin (tabs and newlines
// removed, a backslash read as a slash, spaces and controls trimmed) is
// never where a login sends it: not after POST /login, not from GET /login
// for a user signed in, not in the login form's hidden field. A path of
// the site still is.
func TestALoginNeverRedirectsOffSite(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	const token = "ws-token-0ff51te"
	srv := fx.serve(t, token)
	login := func(next string) answer {
		return do(t, srv, call{method: http.MethodPost, path: "/login", body: url.Values{"token": {token}, "next": {next}}.Encode(),
			contentType: "application/x-www-form-urlencoded"})
	}
	hidden := regexp.MustCompile(`name="next" value="([^"]*)"`)
	for _, next := range []string{"/\t/evil.example/", "/\n/evil.example", "/\\evil.example", "\\/evil.example", " //evil.example",
		"/\r\n/evil.example/x", "\x00//evil.example", "//evil.example", "https://evil.example/", "/\t\\evil.example", "javascript:alert(1)"} {
		a := login(next)
		if loc := a.header.Get("Location"); a.status != http.StatusSeeOther || loc != "/" {
			t.Errorf("POST /login next %q: %d to %q, want /", next, a.status, loc)
		}
		session := strings.SplitN(a.header.Get("Set-Cookie"), ";", 2)[0]
		b := do(t, srv, call{path: "/login?next=" + url.QueryEscape(next), header: map[string]string{"Cookie": session}})
		if loc := b.header.Get("Location"); loc != "/" {
			t.Errorf("GET /login signed in, next %q: to %q, want /", next, loc)
		}
		c := do(t, srv, call{path: "/login?next=" + url.QueryEscape(next)})
		if m := hidden.FindStringSubmatch(c.body); m == nil || html.UnescapeString(m[1]) != "/" {
			t.Errorf("the login form's next for %q: %v", next, m)
		}
	}
	if loc := login("/findings?rule=unbilled_charges").header.Get("Location"); loc != "/findings?rule=unbilled_charges" {
		t.Errorf("a path of the site: to %q", loc)
	}
}
