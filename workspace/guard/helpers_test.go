package guard

import (
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/workspace/guard/guardtest"
)

// bare is a guard before a stand-in of the workspace's routes, on a clock
// of its own (its access's too): logins, sessions, limits.
type bare struct {
	clock *fakeclock.Clock
	logs  *syncbuf.Buffer
}

func newBare() *bare {
	return &bare{clock: fakeclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)), logs: &syncbuf.Buffer{}}
}

// access is the control of c on the bare's clock.
func (b *bare) access(t *testing.T, c access.Config) *access.Control {
	t.Helper()
	ctl, err := access.New(c, b.clock.Now, slog.New(slog.NewTextHandler(b.logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

// pages answer in plain text; the login page says so and its error.
type pages struct{}

func (pages) Fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	http.Error(w, err.Error(), code)
}

func (pages) Refuse(w http.ResponseWriter, r *http.Request, code int, err error) {
	http.Error(w, err.Error(), code)
}

func (pages) Login(w http.ResponseWriter, r *http.Request, code int, p LoginPage) {
	w.WriteHeader(code)
	fmt.Fprintf(w, "log in, then %s. %s", html.EscapeString(p.Next), html.EscapeString(p.Error))
}

// guarded is the guard of set's options before the workspace's stand-in:
// the login routes, GET /api/waivers (200), a page with the logout's
// form as the workspace's header has it, and POST /waivers (200).
func (b *bare) guarded(t *testing.T, set func(*Options)) http.Handler {
	t.Helper()
	o := Options{Log: slog.New(slog.NewTextHandler(b.logs, nil)), Now: b.clock.Now, Pages: pages{}}
	set(&o)
	g, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /login", g.LoginForm)
	m.HandleFunc("POST /login", g.Login)
	m.HandleFunc("POST /logout", g.Logout)
	m.HandleFunc("GET /api/waivers", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "[]") })
	m.HandleFunc("POST /waivers", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "waived") })
	m.HandleFunc("GET /waivers", func(w http.ResponseWriter, r *http.Request) {
		if g.InSession(r) {
			fmt.Fprintf(w, `<form method="post" action="/logout"><input type="hidden" name="csrf" value="%s"></form>`, g.CSRF(r))
		}
	})
	return g.Handler(m)
}

// serve serves the bare guard on a loopback port.
func (b *bare) serve(t *testing.T, set func(*Options)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(b.guarded(t, set))
	t.Cleanup(srv.Close)
	return srv
}

// later moves the bare's clock on by d.
func (b *bare) later(d time.Duration) { b.clock.Sleep(context.Background(), d) }

// call is one request to the guarded stand-in, answer its answer.
type (
	call   = guardtest.Call
	answer = guardtest.Answer
)

// do sends c to srv, redirects not followed.
func do(t testing.TB, srv *httptest.Server, c call) answer { return guardtest.Do(t, srv.URL, c) }

// tokensFile writes a tokens file of users and gives its path.
func tokensFile(t *testing.T, users map[string]string) string { return guardtest.TokensFile(t, users) }
