package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
)

// control is the access of c, failing the test on an error.
func control(t *testing.T, c access.Config) *access.Control {
	t.Helper()
	return controlAt(t, c, time.Now, quiet)
}

// controlAt is the access of c on the clock now, logging to log.
func controlAt(t *testing.T, c access.Config, now func() time.Time, log *slog.Logger) *access.Control {
	t.Helper()
	ctl, err := access.New(c, now, log)
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

func signOffBody(name string) string {
	return `{"period": "", "name": "` + name + `", "role": "CFO", "comment": "ok"}`
}

// ledgerOf is the fixture's ledger.
func ledgerOf(fx *fixture) *ledger.Ledger { return ledger.New(layout.Dir(fx.cfg.Out).Ledger(), nil) }

// ledgerEntries reads the fixture's ledger.
func ledgerEntries(t *testing.T, fx *fixture) []ledger.Entry {
	t.Helper()
	e, err := ledgerOf(fx).Read()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// With identity from a trusted proxy's header, a sign-off records the
// header's user whatever the form or body says; the same header from an
// address that is not a proxy is 401, logged, and records nothing.
func TestTheProxysHeaderIsWhoSignsOff(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	cfg := access.Config{Identity: access.Header, Header: "X-Forwarded-Email", Proxies: []string{"127.0.0.1"},
		Roles: access.Roles{SignOff: []string{"dana@example.com"}}}
	srv := fx.serveWith(t, func(o *Options) { o.Access = control(t, cfg) })
	h := map[string]string{"X-Forwarded-Email": "dana@example.com"}
	a := do(t, srv, call{method: http.MethodPost, path: "/api/signoffs", body: signOffBody("The CFO"), contentType: "application/json", header: h})
	if a.status != http.StatusCreated {
		t.Fatalf("sign-off: %d %s", a.status, a.body)
	}
	e := ledgerEntries(t, fx)
	if len(e) != 1 || e[0].By != "dana@example.com" || e[0].Auth != access.Header || e[0].SignOff.Name != "dana@example.com" {
		t.Fatalf("the ledger: %+v", e)
	}
	if a := do(t, srv, call{path: "/"}); a.status != http.StatusUnauthorized {
		t.Fatalf("a page without the header: %d", a.status)
	}

	var logs syncbuf.Buffer
	cfg.Proxies = []string{"10.9.8.7", "192.168.0.0/16"}
	other := fx.serveWith(t, func(o *Options) {
		o.Access = control(t, cfg)
		o.Log = slog.New(slog.NewTextHandler(&logs, nil))
	})
	for _, c := range []call{{path: "/", header: h}, {method: http.MethodPost, path: "/api/signoffs", body: signOffBody("x"), contentType: "application/json", header: h}} {
		if a := do(t, other, c); a.status != http.StatusUnauthorized || !strings.Contains(a.body, "workspace.proxies") {
			t.Fatalf("%s %s from an address that is not a proxy: %d %s", c.method, c.path, a.status, a.body)
		}
	}
	if !strings.Contains(logs.String(), "not a proxy") || len(ledgerEntries(t, fx)) != 1 {
		t.Fatalf("the refusal: log %q, %d entries", logs.String(), len(ledgerEntries(t, fx)))
	}
}

// With a token each, a user without the sign-off role gets 403 on a
// sign-off, the attempt is logged and nothing is recorded; a user with it
// signs off under their own name; a login opens a session as that user.
func TestATokenEachAndItsRoles(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	tokens := map[string]string{"erin": "erin-token-0123456789", "dana": "dana-token-0123456789"}
	var file strings.Builder
	for name, tok := range tokens {
		sum := sha256.Sum256([]byte(tok))
		file.WriteString(name + ": " + hex.EncodeToString(sum[:]) + "\n")
	}
	path := filepath.Join(t.TempDir(), "users")
	os.WriteFile(path, []byte("# the workspace's users\n"+file.String()), 0o600)
	var logs syncbuf.Buffer
	srv := fx.serveWith(t, func(o *Options) {
		o.Access = control(t, access.Config{Identity: access.Tokens, TokensFile: path,
			Roles: access.Roles{Waive: []string{"*"}, SignOff: []string{"dana"}}})
		o.Log = slog.New(slog.NewTextHandler(&logs, nil))
	})
	bearer := func(name string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + tokens[name]}
	}
	a := do(t, srv, call{method: http.MethodPost, path: "/api/signoffs", body: signOffBody("dana"), contentType: "application/json", header: bearer("erin")})
	if a.status != http.StatusForbidden || !strings.Contains(a.body, "workspace.roles.signoff") {
		t.Fatalf("erin's sign-off: %d %s", a.status, a.body)
	}
	if !strings.Contains(logs.String(), "outside the user's role") || !strings.Contains(logs.String(), "user=erin") || len(ledgerEntries(t, fx)) != 0 {
		t.Fatalf("the refusal: log %q, %d entries", logs.String(), len(ledgerEntries(t, fx)))
	}
	if a := do(t, srv, call{method: http.MethodPost, path: "/api/signoffs", body: signOffBody("erin"), contentType: "application/json", header: bearer("dana")}); a.status != http.StatusCreated {
		t.Fatalf("dana's sign-off: %d %s", a.status, a.body)
	}
	if e := ledgerEntries(t, fx); len(e) != 1 || e[0].By != "dana" || e[0].SignOff.Name != "dana" || e[0].Auth != access.Tokens {
		t.Fatalf("the ledger: %+v", e)
	}
	if a := do(t, srv, call{path: "/api/snapshots", header: map[string]string{"Authorization": "Bearer not-a-user-token-000"}}); a.status != http.StatusUnauthorized {
		t.Fatalf("an unknown token: %d", a.status)
	}
	login := do(t, srv, call{method: http.MethodPost, path: "/login", body: "name=erin&token=" + tokens["erin"] + "&next=/", contentType: "application/x-www-form-urlencoded"})
	cookie := login.header.Get("Set-Cookie")
	if login.status != http.StatusSeeOther || cookie == "" {
		t.Fatalf("login: %d %q", login.status, cookie)
	}
	page := do(t, srv, call{path: "/waive?rule=r&entity_id=e", header: map[string]string{"Cookie": strings.Split(cookie, ";")[0]}})
	if page.status != http.StatusOK || !strings.Contains(page.body, `id="who">erin<`) || strings.Contains(page.body, `name="by"`) {
		t.Fatalf("the waive form of erin's session: %d\n%s", page.status, page.body)
	}
}
