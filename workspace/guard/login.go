package guard

import (
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/billsnap/billsnap/access"
)

// LoginPage is what the login page shows.
type LoginPage struct {
	Next, Error string
	Name        bool // the login asks for the user's name (identity tokens)
}

func (g *Guard) loginPage(next, msg string) LoginPage {
	return LoginPage{Next: next, Error: msg, Name: g.Identified()}
}

// sessionCookie is the value of r's session cookie, "" without one.
func sessionCookie(r *http.Request) string {
	if c, err := r.Cookie(cookieName); err == nil {
		return c.Value
	}
	return ""
}

// InSession tells whether r comes from a login's session: the pages then
// offer the logout.
func (g *Guard) InSession(r *http.Request) bool { return g.LogsIn() && sessionCookie(r) != "" }

// unauthorized is 401: the API says so in JSON, a page offers the login.
func (g *Guard) unauthorized(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="billsnap"`)
	if isAPI(r) {
		g.o.Pages.Refuse(w, r, http.StatusUnauthorized, errors.New("the token is required (Authorization: Bearer …)"))
		return
	}
	g.o.Pages.Login(w, r, http.StatusUnauthorized, g.loginPage(LocalPath(r.URL.RequestURI()), ""))
}

// Login takes the token (and with identity tokens, the name) from the
// login form and opens a session: the shared token's, or the user's own.
// Too many wrong attempts from an address or for a user wait (429).
func (g *Guard) Login(w http.ResponseWriter, r *http.Request) {
	if !g.LogsIn() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	next := LocalPath(r.FormValue("next"))
	from, name := g.client(r), g.knownName(r.PostFormValue("name"))
	if wait := max(g.addrs.wait(from), g.users.wait(name)); wait > 0 {
		g.tooMany(w, r, wait)
		return
	}
	u, sum, ok := g.check(r.PostFormValue("name"), r.PostFormValue("token"))
	if !ok {
		g.addrs.fail(from)
		if name != "" {
			g.users.fail(name)
		}
		g.o.Log.Warn("workspace: a login with a wrong token", "from", from, "name", name)
		g.o.Pages.Login(w, r, http.StatusUnauthorized, g.loginPage(next, "That is not a token this workspace knows."))
		return
	}
	id, err := g.sessions.open(u, sum)
	if err != nil {
		g.o.Pages.Fail(w, r, http.StatusInternalServerError, err)
		return
	}
	g.o.Log.Info("workspace: logged in", "user", u.Name, "from", from)
	http.SetCookie(w, g.cookie(r, id, int(g.sessions.ttl.Seconds())))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// cookie is the session cookie of id for maxAge seconds (negative: it is
// cleared): HttpOnly, SameSite=Strict, Secure when r came over TLS.
func (g *Guard) cookie(r *http.Request, id string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: cookieName, Value: id, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: g.https(r)}
}

// knownName is name when the tokens file names that user ("" otherwise):
// the users a login is limited for are those that exist, so that made-up
// names cannot grow the limiter.
func (g *Guard) knownName(name string) string {
	if name = strings.TrimSpace(name); g.Identified() && g.o.Access.Known(name) {
		return name
	}
	return ""
}

// check is the user that token (and with identity tokens, name) log in,
// and the token's hash, if they log one in.
func (g *Guard) check(name, token string) (access.User, [sha256.Size]byte, bool) {
	sum := sha256.Sum256([]byte(token))
	u, ok := g.holder(sum)
	if g.Identified() {
		ok = ok && u.Name == strings.TrimSpace(name)
	}
	return u, sum, ok
}

// Logout ends the session on the server and clears its cookie.
func (g *Guard) Logout(w http.ResponseWriter, r *http.Request) {
	if err := g.CheckForm(r); err != nil {
		g.o.Pages.Fail(w, r, http.StatusForbidden, err)
		return
	}
	g.sessions.end(sessionCookie(r))
	g.o.Log.Info("workspace: logged out", "user", User(r).Name, "from", g.client(r))
	http.SetCookie(w, g.cookie(r, "", -1))
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// LogsIn tells whether a browser logs in: with the shared token, or with
// identity tokens (a proxy's header needs no login).
func (g *Guard) LogsIn() bool {
	if g.Identified() {
		return g.o.Access.Identity == access.Tokens
	}
	return g.o.Token != ""
}

// LoginForm shows the login page (or the overview when no token is set).
func (g *Guard) LoginForm(w http.ResponseWriter, r *http.Request) {
	if !g.LogsIn() || g.authenticated(r) {
		http.Redirect(w, r, LocalPath(r.FormValue("next")), http.StatusSeeOther)
		return
	}
	g.o.Pages.Login(w, r, http.StatusOK, g.loginPage(LocalPath(r.FormValue("next")), ""))
}

// LocalPath is p as a browser reads it (WHATWG URL: tabs and newlines
// removed, C0 controls and spaces trimmed at either end, a backslash a
// slash) when that is a path of this site, else "/": a login never sends
// a browser elsewhere. Checked before that normalisation, "/\t/evil" passed
// as a path and a browser followed it to //evil, another origin (OWASP's
// unvalidated redirects).
func LocalPath(p string) string {
	n := strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r':
			return -1
		case '\\':
			return '/'
		}
		return r
	}, p)
	n = strings.TrimFunc(n, func(r rune) bool { return r <= ' ' })
	if !strings.HasPrefix(n, "/") || strings.HasPrefix(n, "//") || n == "/login" || strings.ContainsFunc(n, unicode.IsControl) {
		return "/"
	}
	if u, err := url.Parse(n); err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return n
}
