package workspace

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
)

func TestCheckListen(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr  string
		token bool
		ok    bool
	}{
		{"127.0.0.1:8080", false, true}, {"localhost:8080", false, true}, {"[::1]:8080", false, true},
		{"0.0.0.0:8080", false, false}, {":8080", false, false}, {"192.168.1.5:80", false, false},
		{"0.0.0.0:8080", true, true}, {"8080", false, false},
	} {
		if err := CheckListen(c.addr, c.token); (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, token %v) = %v", c.addr, c.token, err)
		}
	}
}

// With a token, every page and API call without it is 401 (a page offers
// the login form); the bearer header and the cookie of a login let in; the
// cookie is HttpOnly and SameSite=Strict, and is not the token.
func TestTheTokenIsRequired(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	const token = "ws-token-5c1e9d"
	srv := fx.serve(t, token)
	for _, p := range []string{"/", "/findings", "/api/findings", "/api/snapshots", "/waivers", "/audit"} {
		a := do(t, srv, call{path: p})
		if a.status != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d", p, a.status)
		}
		if !strings.HasPrefix(p, "/api/") && !strings.Contains(a.body, `action="/login"`) {
			t.Errorf("GET %s without the token offers no login:\n%s", p, a.body)
		}
	}
	if a := do(t, srv, call{path: "/api/findings", header: map[string]string{"Authorization": "Bearer nope"}}); a.status != http.StatusUnauthorized {
		t.Errorf("a wrong bearer: %d", a.status)
	}
	if a := do(t, srv, call{path: "/api/findings", header: map[string]string{"Authorization": "Bearer " + token}}); a.status != http.StatusOK {
		t.Errorf("the bearer: %d %s", a.status, a.body)
	}
	form := func(tok string) call {
		return call{method: http.MethodPost, path: "/login", body: url.Values{"token": {tok}, "next": {"/findings"}}.Encode(),
			contentType: "application/x-www-form-urlencoded"}
	}
	if a := do(t, srv, form("wrong")); a.status != http.StatusUnauthorized || a.header.Get("Set-Cookie") != "" {
		t.Errorf("a wrong login: %d, cookie %q", a.status, a.header.Get("Set-Cookie"))
	}
	a := do(t, srv, form(token))
	cookie := a.header.Get("Set-Cookie")
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/findings" || !strings.Contains(cookie, "HttpOnly") ||
		!strings.Contains(cookie, "SameSite=Strict") || strings.Contains(cookie, token) {
		t.Fatalf("the login: %d to %q, cookie %q", a.status, a.header.Get("Location"), cookie)
	}
	session := strings.SplitN(cookie, ";", 2)[0]
	if a := do(t, srv, call{path: "/", header: map[string]string{"Cookie": session}}); a.status != http.StatusOK {
		t.Errorf("with the cookie: %d", a.status)
	}
	if a := do(t, srv, form(token+"x")); a.status != http.StatusUnauthorized {
		t.Errorf("a longer token: %d", a.status)
	}
	evil := form(token)
	evil.body = url.Values{"token": {token}, "next": {"//evil.example/"}}.Encode()
	if a := do(t, srv, evil); a.header.Get("Location") != "/" {
		t.Errorf("a login sent elsewhere: %q", a.header.Get("Location"))
	}
}

// Writes from another site are refused: by Sec-Fetch-Site, by Origin, a
// form without the CSRF token, a JSON API call with a form's type; and
// without a token, a Host that is not loopback (DNS rebinding) gets
// nothing at all. None of them reaches the ledger.
func TestCrossSiteWritesAreRefused(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	waiver := `{"rule":"paid_without_payment","entity_id":"x","reason":"r","owner":"o","expires":"2099-01-01"}`
	for name, c := range map[string]call{
		"sec-fetch-site": {method: http.MethodPost, path: "/api/waivers", body: waiver, contentType: "application/json",
			header: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"origin": {method: http.MethodPost, path: "/api/waivers", body: waiver, contentType: "application/json",
			header: map[string]string{"Origin": "https://evil.example"}},
		"text/plain": {method: http.MethodPost, path: "/api/waivers", body: waiver, contentType: "text/plain"},
		"no csrf": {method: http.MethodPost, path: "/waivers", contentType: "application/x-www-form-urlencoded",
			body: url.Values{"rule": {"paid_without_payment"}, "entity_id": {"x"}, "reason": {"r"}, "owner": {"o"}, "expires": {"2099-01-01"}}.Encode()},
		"delete cross-site": {method: http.MethodDelete, path: "/api/waivers/W1", header: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"rebinding":         {path: "/api/findings", header: map[string]string{"Host": "evil.example"}},
	} {
		req := c
		if h, ok := req.header["Host"]; ok {
			delete(req.header, "Host")
			a := doHost(t, srv.URL, h, req)
			if a.status != http.StatusMisdirectedRequest {
				t.Errorf("%s: %d %s", name, a.status, a.body)
			}
			continue
		}
		if a := do(t, srv, req); a.status != http.StatusForbidden && a.status != http.StatusBadRequest && a.status != http.StatusNotFound {
			t.Errorf("%s: %d %s", name, a.status, a.body)
		} else if a.status == http.StatusNotFound && name != "delete cross-site" {
			t.Errorf("%s: %d", name, a.status)
		}
	}
	if _, err := os.Stat(filepath.Join(fx.cfg.Out, ".billsnap", "ledger.jsonl")); err == nil {
		t.Fatal("a refused write reached the ledger")
	}
}

// doHost sends c with another Host header.
func doHost(t *testing.T, base, host string, c call) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+c.path, nil)
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return answer{status: resp.StatusCode}
}

// A customer named <script>alert(1)</script> is shown as text everywhere
// it appears: its record, the raw JSON, the audit log of a waiver naming it.
func TestOutputIsEscaped(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	csrf := csrfOf(t, srv)
	var target findings.Finding // a waiver names a finding; its reason, owner and maker are the name
	for _, f := range fx.reconciled.Open() {
		if f.Rule == "paid_without_payment" {
			target = f
		}
	}
	a := do(t, srv, call{method: http.MethodPost, path: "/waivers", contentType: "application/x-www-form-urlencoded",
		body: url.Values{"csrf": {csrf}, "rule": {target.Rule}, "entity_id": {target.EntityID}, "reason": {evilName},
			"owner": {evilName}, "expires": {"2099-01-01"}, "by": {evilName}, "back": {"/waivers"}}.Encode()})
	if a.status != http.StatusSeeOther {
		t.Fatalf("the waive form: %d %s", a.status, a.body)
	}
	for _, p := range []string{"/entities/customer/" + fx.evilID, "/audit", "/waivers"} {
		a := do(t, srv, call{path: p})
		if a.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, a.status, a.body)
		}
		if strings.Contains(a.body, "<script>") || !strings.Contains(a.body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("GET %s shows the name unescaped, or not at all", p)
		}
	}
}

// csrfOf is the CSRF token of a page's forms.
func csrfOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(do(t, srv, call{path: "/waive"}).body)
	if m == nil {
		t.Fatal("the waive form carries no CSRF token")
	}
	return m[1]
}

// Read paths never write: after every page and API read, no file of the
// store has changed, been added or removed.
func TestReadPathsNeverWrite(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	before := tree(t, fx.cfg.Out)
	for _, p := range []string{"/", "/findings", "/findings?sort=amount&dir=desc&page=2", "/findings.csv", "/findings.xlsx",
		"/entities/customer/" + fx.evilID, "/waivers", "/audit", "/waive?rule=x&entity_id=y", "/api/snapshots", "/api/findings",
		"/api/entities/customer/" + fx.evilID, "/api/waivers", "/api/signoffs", "/assets/style.css", "/changes", "/api/changes",
		"/assign?rule=x&entity_id=y", "/findings?assignee=x", "/api/findings?assignee=x", "/api/assignments", "/api/aging"} {
		if a := do(t, srv, call{path: p}); a.status != http.StatusOK {
			t.Errorf("GET %s: %d %s", p, a.status, a.body)
		}
	}
	if after := tree(t, fx.cfg.Out); !equalTrees(before, after) {
		t.Fatalf("reads changed the store:\nbefore %v\nafter  %v", before, after)
	}
}

type fileState struct {
	size  int64
	mtime time.Time
}

// tree is every file under dir with its size and time.
func tree(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fileState{fi.Size(), fi.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(a, b map[string]fileState) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !w.mtime.Equal(v.mtime) || w.size != v.size {
			return false
		}
	}
	return true
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)
