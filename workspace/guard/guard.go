// Package guard is who gets into the finance workspace, and what a
// request may send it: without a token nor identity, only requests whose
// Host is a loopback name (so that a web page cannot reach it by DNS
// rebinding); with a token, every request shows it (a bearer header, or
// the HttpOnly, SameSite=Strict cookie of a session a browser gets by
// logging in, which ends when it expires, at a logout, or when its token
// is removed); with identity (package access), every request shows whose
// it is. It limits bodies and wrong logins, keys the forms' CSRF tokens,
// and tells the workspace who acts in a request ([Actor]) and whether that
// user may ([Guard.May]).
//
// The workspace stands above it: it answers through the workspace's pages
// (Pages), and imports nothing of the workspace.
package guard

import (
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/billsnap/billsnap/access"
)

// Pages are how the guard answers through the workspace: an error (a page,
// or JSON for the API), a refusal that renders nothing of the session,
// and the login page.
type Pages interface {
	Fail(w http.ResponseWriter, r *http.Request, code int, err error)
	Refuse(w http.ResponseWriter, r *http.Request, code int, err error)
	Login(w http.ResponseWriter, r *http.Request, code int, p LoginPage)
}

// Options configure a guard.
type Options struct {
	Token string // "" : no token; then only loopback Host names are answered
	// Access identifies users (workspace.identity) and holds their roles;
	// nil or without identity, the workspace is unattributed (Token as
	// above, names as typed).
	Access *access.Control
	Log    *slog.Logger
	Now    func() time.Time
	// SessionTTL is how long a login's session lasts (0: 12 h).
	SessionTTL time.Duration
	Pages      Pages
}

// Guard guards one workspace. Its sessions and CSRF key live as long as
// it does: a restart ends them.
type Guard struct {
	o        Options
	secret   []byte // keys the CSRF tokens; new at each start
	sessions *sessions
	addrs    *limiter // wrong logins and bearer tokens per address
	users    *limiter // wrong logins per user named
}

// New makes the guard of o; Log, Now and Pages are required.
func New(o Options) (*Guard, error) {
	if o.Log == nil || o.Now == nil || o.Pages == nil {
		return nil, errors.New("guard: Log, Now and Pages are required")
	}
	o.SessionTTL = cmp.Or(o.SessionTTL, 12*time.Hour)
	secret, err := randomBytes(32)
	if err != nil {
		return nil, err
	}
	return &Guard{o: o, secret: secret, sessions: newSessions(o.SessionTTL, o.Now),
		addrs: newLimiter(o.Now), users: newLimiter(o.Now)}, nil
}

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

// Handler is next behind the body limits and the guard.
func (g *Guard) Handler(next http.Handler) http.Handler { return g.limitBody(g.guard(next)) }

// Loopback tells whether host (without port) names this machine only.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// guard answers only what may be answered: without a token nor identity,
// requests to a loopback Host name; else requests that show who they come
// from. The login page and the embedded assets are open to all; an
// address with too many wrong tokens waits (429).
func (g *Guard) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "same-origin")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
		if !g.Identified() && g.o.Token == "" {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if !Loopback(strings.Trim(host, "[]")) {
				g.o.Pages.Fail(w, r, http.StatusMisdirectedRequest, errors.New("this workspace answers only on a loopback address (localhost, 127.0.0.1, ::1)"))
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/login" || strings.HasPrefix(r.URL.Path, "/assets/") {
			next.ServeHTTP(w, r)
			return
		}
		if _, ok := access.Bearer(r); ok && g.LogsIn() {
			if wait := g.addrs.wait(g.client(r)); wait > 0 {
				g.tooMany(w, r, wait)
				return
			}
		}
		g.identify(next, w, r)
	})
}

// who is who r comes from: its identity (a proxy's header, a bearer
// token, a live session), or with the shared token, the unattributed
// User{} when r shows the token or a live session of it. A wrong bearer
// token counts against r's address.
func (g *Guard) who(r *http.Request) (access.User, error) {
	u, err := g.shown(r)
	if _, bearer := access.Bearer(r); bearer && err != nil && g.LogsIn() {
		g.addrs.fail(g.client(r))
	}
	return u, err
}

func (g *Guard) shown(r *http.Request) (access.User, error) {
	if g.Identified() {
		u, err := g.o.Access.Identify(r)
		if errors.Is(err, access.ErrNoIdentity) && g.o.Access.Identity == access.Tokens {
			if _, bearer := access.Bearer(r); !bearer {
				return g.fromSession(r)
			}
		}
		return u, err
	}
	if bearer, ok := access.Bearer(r); ok {
		if subtle.ConstantTimeCompare([]byte(bearer), []byte(g.o.Token)) == 1 {
			return access.User{}, nil
		}
		return access.User{}, access.ErrNoIdentity
	}
	return g.fromSession(r)
}

// fromSession is the user of r's session, when it is live and the token
// it was opened with is still its user's (else the session is ended).
func (g *Guard) fromSession(r *http.Request) (access.User, error) {
	id := sessionCookie(r)
	ss, ok := g.sessions.get(id)
	if !ok {
		return access.User{}, access.ErrNoIdentity
	}
	if u, ok := g.holder(ss.sum); ok && u == ss.user {
		return u, nil
	}
	g.sessions.end(id)
	return access.User{}, access.ErrNoIdentity
}

// holder is the user whose token hashes to sum now: with identity
// tokens, as the tokens file says; else the shared token's unattributed
// user.
func (g *Guard) holder(sum [sha256.Size]byte) (access.User, bool) {
	if g.Identified() {
		u, err := g.o.Access.Resume(sum)
		return u, err == nil
	}
	want := sha256.Sum256([]byte(g.o.Token))
	return access.User{}, subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}

// authenticated tells whether r shows who it comes from.
func (g *Guard) authenticated(r *http.Request) bool {
	_, err := g.who(r)
	return err == nil
}

// client is the address r comes from, through the trusted proxies.
func (g *Guard) client(r *http.Request) string {
	if g.o.Access != nil {
		return g.o.Access.Client(r)
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// https tells whether r came over TLS, the workspace's or a trusted
// proxy's.
func (g *Guard) https(r *http.Request) bool {
	if g.o.Access != nil {
		return g.o.Access.HTTPS(r)
	}
	return r.TLS != nil
}

// CSRF is the token a form of r's session carries; a page of another
// site cannot read it.
func (g *Guard) CSRF(r *http.Request) string {
	sess := "loopback"
	if c := sessionCookie(r); c != "" {
		sess = c
	}
	if u := User(r); u.Auth != access.None {
		sess += "\x00" + u.Auth + "\x00" + u.Name
	}
	return mac(g.secret, "csrf "+sess)
}

// CheckForm refuses a form without its session's CSRF token.
func (g *Guard) CheckForm(r *http.Request) error {
	if !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(g.CSRF(r))) {
		return errors.New("the form's CSRF token is missing or stale: load the page again")
	}
	return nil
}

// isAPI tells whether r is for the JSON API.
func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }
