package workspace

import (
	"net/http"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/workspace/guard/guardtest"
)

// Once the store's ledger holds an attributed entry, a workspace served
// without identity refuses an unattributed write (403, naming
// workspace.identity) and records nothing; with
// workspace.allow_unattributed it takes it, and the entry says so.
func TestIdentityIsKept(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	path := guardtest.TokensFile(t, map[string]string{"dana": "dana-token-0123456789"})
	withIdentity := fx.serveWith(t, func(o *Options) {
		o.Access = control(t, access.Config{Identity: access.Tokens, TokensFile: path, Roles: access.Roles{SignOff: []string{"dana"}}})
	})
	bearer := map[string]string{"Authorization": "Bearer dana-token-0123456789"}
	signOff := func(srv, name string, header map[string]string) answer {
		a := guardtest.Do(t, srv, guardtest.Call{Method: http.MethodPost, Path: "/api/signoffs", Body: signOffBody(name),
			ContentType: "application/json", Header: header})
		return answer{status: a.Status, body: a.Body}
	}
	unattributed := fx.serve(t, "")
	if a := signOff(unattributed.URL, "carol", nil); a.status != http.StatusCreated {
		t.Fatalf("an unattributed sign-off on a ledger of none attributed: %d %s", a.status, a.body)
	}
	if a := signOff(withIdentity.URL, "dana", bearer); a.status != http.StatusCreated {
		t.Fatalf("dana's sign-off with identity: %d %s", a.status, a.body)
	}
	before := len(ledgerEntries(t, fx))
	a := signOff(unattributed.URL, "erin", nil)
	if a.status != http.StatusForbidden || !strings.Contains(a.body, "workspace.identity") || len(ledgerEntries(t, fx)) != before {
		t.Fatalf("an unattributed sign-off after an attributed one: %d %s, %d entries (was %d)", a.status, a.body, len(ledgerEntries(t, fx)), before)
	}
	allowed := fx.serveWith(t, func(o *Options) { o.AllowUnattributed = true })
	if a := signOff(allowed.URL, "frank", nil); a.status != http.StatusCreated {
		t.Fatalf("with workspace.allow_unattributed: %d %s", a.status, a.body)
	}
	e := ledgerEntries(t, fx)
	if last := e[len(e)-1]; last.Auth != "" || last.Allowed != "workspace.allow_unattributed" || e[0].Allowed != "" {
		t.Fatalf("the entries: first %+v, last %+v", e[0], last)
	}
}
