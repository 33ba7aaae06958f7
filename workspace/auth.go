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

// session is the cookie's value: derived from the token, so that a new
// token ends every session, and not the token itself.
func (s *Server) session() string { return mac([]byte(s.o.Token), "billsnap workspace session") }

// guard answers only what may be answered: without a token, requests to
// a loopback Host name; with one, requests that show it. The login page
// and the embedded assets are open to all.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "same-origin")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
		if s.identified() {
			if r.URL.Path == "/login" || strings.HasPrefix(r.URL.Path, "/assets/") {
				next.ServeHTTP(w, r)
				return
			}
			s.identify(next, w, r)
			return
		}
		if s.o.Token == "" {
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
		if s.authenticated(r) || r.URL.Path == "/login" || strings.HasPrefix(r.URL.Path, "/assets/") {
			next.ServeHTTP(w, r)
			return
		}
		s.unauthorized(w, r)
	})
}

// authenticated tells whether r shows the token: as a bearer header or as
// the session cookie (with identity: whether r is identified).
func (s *Server) authenticated(r *http.Request) bool {
	if s.identified() {
		_, err := s.o.Access.Identify(r, sessionCookie(r))
		return err == nil
	}
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return subtle.ConstantTimeCompare([]byte(bearer), []byte(s.o.Token)) == 1
	}
	c, err := r.Cookie(cookieName)
	return err == nil && hmac.Equal([]byte(c.Value), []byte(s.session()))
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
	s.render(w, r, http.StatusUnauthorized, "login", loginPage{Next: localPath(r.URL.RequestURI())})
}

type loginPage struct {
	Next, Error string
}

// login takes the token from the login form and gives the session cookie:
// the shared token's, or with identity tokens, the user's own.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.logsIn() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	next := localPath(r.FormValue("next"))
	session, ok := s.sessionOf(r.PostFormValue("token"))
	if !ok {
		s.o.Log.Warn("workspace: a login with a wrong token", "from", r.RemoteAddr)
		s.render(w, r, http.StatusUnauthorized, "login", loginPage{Next: next, Error: "That is not a token this workspace knows."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: session, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logsIn tells whether a browser logs in: with the shared token, or with
// identity tokens (a proxy's header needs no login).
func (s *Server) logsIn() bool {
	if s.identified() {
		return s.o.Access.Identity == access.Tokens
	}
	return s.o.Token != ""
}

// sessionOf is the session cookie token opens, if it opens one.
func (s *Server) sessionOf(token string) (string, bool) {
	if s.identified() {
		u, err := s.o.Access.Login(token)
		if err != nil {
			return "", false
		}
		s.o.Log.Info("workspace: logged in", "user", u.Name)
		return s.o.Access.Session(u), true
	}
	return s.session(), subtle.ConstantTimeCompare([]byte(token), []byte(s.o.Token)) == 1
}

// loginForm shows the login page (or the overview when no token is set).
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	if !s.logsIn() || s.authenticated(r) {
		http.Redirect(w, r, localPath(r.FormValue("next")), http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login", loginPage{Next: localPath(r.FormValue("next"))})
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
