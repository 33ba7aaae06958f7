package workspace

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/billsnap/billsnap/access"
)

// cookieName is the session cookie a browser gets by logging in.
const cookieName = "billsnap_session"

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := rand.Read(b)
	return b, err
}

func mac(key []byte, msg string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return hex.EncodeToString(h.Sum(nil))
}

// guard answers only what may be answered: without a token nor identity,
// requests to a loopback Host name; else requests that show who they come
// from. The login page and the embedded assets are open to all; an
// address with too many wrong tokens waits (429).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "same-origin")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
		if !s.identified() && s.o.Token == "" {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if !isLoopback(strings.Trim(host, "[]")) {
				s.fail(w, r, http.StatusMisdirectedRequest, errors.New("this workspace answers only on a loopback address (localhost, 127.0.0.1, ::1)"))
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/login" || strings.HasPrefix(r.URL.Path, "/assets/") {
			next.ServeHTTP(w, r)
			return
		}
		if _, ok := access.Bearer(r); ok && s.logsIn() {
			if wait := s.addrs.wait(s.client(r)); wait > 0 {
				s.tooMany(w, r, wait)
				return
			}
		}
		s.identify(next, w, r)
	})
}

// who is who r comes from: its identity (a proxy's header, a bearer
// token, a live session), or with the shared token, the unattributed
// User{} when r shows the token or a live session of it. A wrong bearer
// token counts against r's address.
func (s *Server) who(r *http.Request) (access.User, error) {
	u, err := s.shown(r)
	if _, bearer := access.Bearer(r); bearer && err != nil && s.logsIn() {
		s.addrs.fail(s.client(r))
	}
	return u, err
}

func (s *Server) shown(r *http.Request) (access.User, error) {
	if s.identified() {
		u, err := s.o.Access.Identify(r)
		if errors.Is(err, access.ErrNoIdentity) && s.o.Access.Identity == access.Tokens {
			if _, bearer := access.Bearer(r); !bearer {
				return s.fromSession(r)
			}
		}
		return u, err
	}
	if bearer, ok := access.Bearer(r); ok {
		if subtle.ConstantTimeCompare([]byte(bearer), []byte(s.o.Token)) == 1 {
			return access.User{}, nil
		}
		return access.User{}, access.ErrNoIdentity
	}
	return s.fromSession(r)
}

// fromSession is the user of r's session, when it is live and the token
// it was opened with is still its user's (else the session is ended).
func (s *Server) fromSession(r *http.Request) (access.User, error) {
	id := sessionCookie(r)
	ss, ok := s.sessions.get(id)
	if !ok {
		return access.User{}, access.ErrNoIdentity
	}
	if u, ok := s.holder(ss.sum); ok && u == ss.user {
		return u, nil
	}
	s.sessions.end(id)
	return access.User{}, access.ErrNoIdentity
}

// holder is the user whose token hashes to sum now: with identity
// tokens, as the tokens file says; else the shared token's unattributed
// user.
func (s *Server) holder(sum [sha256.Size]byte) (access.User, bool) {
	if s.identified() {
		u, err := s.o.Access.Resume(sum)
		return u, err == nil
	}
	want := sha256.Sum256([]byte(s.o.Token))
	return access.User{}, subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}

// authenticated tells whether r shows who it comes from.
func (s *Server) authenticated(r *http.Request) bool {
	_, err := s.who(r)
	return err == nil
}

// client is the address r comes from, through the trusted proxies.
func (s *Server) client(r *http.Request) string {
	if s.o.Access != nil {
		return s.o.Access.Client(r)
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// https tells whether r came over TLS, the workspace's or a trusted
// proxy's.
func (s *Server) https(r *http.Request) bool {
	if s.o.Access != nil {
		return s.o.Access.HTTPS(r)
	}
	return r.TLS != nil
}

// sessionCookie is the value of r's session cookie, "" without one.
func sessionCookie(r *http.Request) string {
	if c, err := r.Cookie(cookieName); err == nil {
		return c.Value
	}
	return ""
}

// unauthorized is 401: the API says so in JSON, a page offers the login.
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="billsnap"`)
	if isAPI(r) {
		writeJSONError(w, http.StatusUnauthorized, errors.New("the token is required (Authorization: Bearer …)"))
		return
	}
	s.render(w, r, http.StatusUnauthorized, "login", s.loginPage(localPath(r.URL.RequestURI()), ""))
}

type loginPage struct {
	Next, Error string
	Name        bool // the login asks for the user's name (identity tokens)
}

func (s *Server) loginPage(next, msg string) loginPage {
	return loginPage{Next: next, Error: msg, Name: s.identified()}
}

// login takes the token (and with identity tokens, the name) from the
// login form and opens a session: the shared token's, or the user's own.
// Too many wrong attempts from an address or for a user wait (429).
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.logsIn() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	next := localPath(r.FormValue("next"))
	from, name := s.client(r), s.knownName(r.PostFormValue("name"))
	if wait := max(s.addrs.wait(from), s.users.wait(name)); wait > 0 {
		s.tooMany(w, r, wait)
		return
	}
	u, sum, ok := s.check(r.PostFormValue("name"), r.PostFormValue("token"))
	if !ok {
		s.addrs.fail(from)
		if name != "" {
			s.users.fail(name)
		}
		s.o.Log.Warn("workspace: a login with a wrong token", "from", from, "name", name)
		s.render(w, r, http.StatusUnauthorized, "login", s.loginPage(next, "That is not a token this workspace knows."))
		return
	}
	id, err := s.sessions.open(u, sum)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	s.o.Log.Info("workspace: logged in", "user", u.Name, "from", from)
	http.SetCookie(w, s.cookie(r, id, int(s.sessions.ttl.Seconds())))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// cookie is the session cookie of id for maxAge seconds (negative: it is
// cleared): HttpOnly, SameSite=Strict, Secure when r came over TLS.
func (s *Server) cookie(r *http.Request, id string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: cookieName, Value: id, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.https(r)}
}

// knownName is name when the tokens file names that user ("" otherwise):
// the users a login is limited for are those that exist, so that made-up
// names cannot grow the limiter.
func (s *Server) knownName(name string) string {
	if name = strings.TrimSpace(name); s.identified() && s.o.Access.Known(name) {
		return name
	}
	return ""
}

// check is the user that token (and with identity tokens, name) log in,
// and the token's hash, if they log one in.
func (s *Server) check(name, token string) (access.User, [sha256.Size]byte, bool) {
	sum := sha256.Sum256([]byte(token))
	u, ok := s.holder(sum)
	if s.identified() {
		ok = ok && u.Name == strings.TrimSpace(name)
	}
	return u, sum, ok
}

// logout ends the session on the server and clears its cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if err := s.checkForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	s.sessions.end(sessionCookie(r))
	s.o.Log.Info("workspace: logged out", "user", user(r).Name, "from", s.client(r))
	http.SetCookie(w, s.cookie(r, "", -1))
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// logsIn tells whether a browser logs in: with the shared token, or with
// identity tokens (a proxy's header needs no login).
func (s *Server) logsIn() bool {
	if s.identified() {
		return s.o.Access.Identity == access.Tokens
	}
	return s.o.Token != ""
}

// loginForm shows the login page (or the overview when no token is set).
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	if !s.logsIn() || s.authenticated(r) {
		http.Redirect(w, r, localPath(r.FormValue("next")), http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login", s.loginPage(localPath(r.FormValue("next")), ""))
}

// localPath is p when it is a path of this site, else "/": a login never
// sends a browser elsewhere.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") || p == "/login" {
		return "/"
	}
	return p
}

// csrfToken is the token a form of this session carries; a page of
// another site cannot read it.
func (s *Server) csrfToken(r *http.Request) string {
	sess := "loopback"
	if c := sessionCookie(r); c != "" {
		sess = c
	}
	if u := user(r); u.Auth != access.None {
		sess += "\x00" + u.Auth + "\x00" + u.Name
	}
	return mac(s.secret, "csrf "+sess)
}

// checkForm refuses a form without this session's CSRF token.
func (s *Server) checkForm(r *http.Request) error {
	if !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(s.csrfToken(r))) {
		return errors.New("the form's CSRF token is missing or stale: load the page again")
	}
	return nil
}

// isAPI tells whether r is for the JSON API.
func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }
