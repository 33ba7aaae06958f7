package guard

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/ledger"
)

type userKey struct{}

// Identified tells whether the workspace takes its users' identity
// (workspace.identity), not the names they type.
func (g *Guard) Identified() bool { return g.o.Access != nil && g.o.Access.Identity != access.None }

// identify answers a request that must show who it comes from: shown, it
// goes on with its user in its context; else 401, logged when it named a
// user from an address that is not a proxy.
func (g *Guard) identify(next http.Handler, w http.ResponseWriter, r *http.Request) {
	u, err := g.who(r)
	var untrusted *access.UntrustedError
	switch {
	case err == nil:
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	case errors.As(err, &untrusted):
		g.o.Log.Warn("workspace: an identity header from an address that is not a proxy", "header", untrusted.Header, "from", r.RemoteAddr, "path", r.URL.Path)
		g.o.Pages.Refuse(w, r, http.StatusUnauthorized, err)
	case g.Identified() && g.o.Access.Identity == access.Header:
		g.o.Pages.Refuse(w, r, http.StatusUnauthorized, errors.New("no "+g.o.Access.Header+" header: the workspace is reached through its proxy"))
	default:
		g.unauthorized(w, r)
	}
}

// User is who r comes from: the identity, or the unattributed User{}.
func User(r *http.Request) access.User {
	u, _ := r.Context().Value(userKey{}).(access.User)
	return u
}

// Actor is who acts in r: the identity when the workspace has one (what
// the form says is ignored), else the name given; and the address it
// came from.
func Actor(r *http.Request, typed string) ledger.Actor {
	if u := User(r); u.Auth != access.None {
		return ledger.Actor{By: u.Name, From: r.RemoteAddr, Auth: u.Auth}
	}
	typed = strings.TrimSpace(typed)
	if typed == "" {
		typed = "(unnamed)"
	}
	return ledger.Actor{By: typed, From: r.RemoteAddr}
}

// May checks that r's user may act in role; a refusal is logged.
func (g *Guard) May(r *http.Request, role string) error {
	if g.o.Access == nil {
		return nil
	}
	err := g.o.Access.May(User(r), role)
	if err != nil {
		g.o.Log.Warn("workspace: refused: outside the user's role", "user", User(r).Name, "role", role, "path", r.URL.Path, "from", r.RemoteAddr)
	}
	return err
}
