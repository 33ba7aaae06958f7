package workspace

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/ledger"
)

type userKey struct{}

// identified tells whether the workspace takes its users' identity
// (workspace.identity), not the names they type.
func (s *Server) identified() bool { return s.o.Access != nil && s.o.Access.Identity != access.None }

// identify answers a request that must show who it comes from: shown, it
// goes on with its user in its context; else 401, logged when it named a
// user from an address that is not a proxy.
func (s *Server) identify(next http.Handler, w http.ResponseWriter, r *http.Request) {
	u, err := s.who(r)
	var untrusted *access.UntrustedError
	switch {
	case err == nil:
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	case errors.As(err, &untrusted):
		s.o.Log.Warn("workspace: an identity header from an address that is not a proxy", "header", untrusted.Header, "from", r.RemoteAddr, "path", r.URL.Path)
		s.refuse(w, r, http.StatusUnauthorized, err)
	case s.identified() && s.o.Access.Identity == access.Header:
		s.refuse(w, r, http.StatusUnauthorized, errors.New("no "+s.o.Access.Header+" header: the workspace is reached through its proxy"))
	default:
		s.unauthorized(w, r)
	}
}

// refuse answers code with err without rendering the session's page.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, code int, err error) {
	if isAPI(r) {
		writeJSONError(w, code, err)
		return
	}
	http.Error(w, err.Error(), code)
}

// user is who r comes from: the identity, or the unattributed User{}.
func user(r *http.Request) access.User {
	u, _ := r.Context().Value(userKey{}).(access.User)
	return u
}

// actor is who acts in r: the identity when the workspace has one (what
// the form says is ignored), else the name given; and the address it
// came from.
func actor(r *http.Request, typed string) ledger.Actor {
	if u := user(r); u.Auth != access.None {
		return ledger.Actor{By: u.Name, From: r.RemoteAddr, Auth: u.Auth}
	}
	typed = strings.TrimSpace(typed)
	if typed == "" {
		typed = "(unnamed)"
	}
	return ledger.Actor{By: typed, From: r.RemoteAddr}
}

// may checks that r's user may act in role; a refusal is logged.
func (s *Server) may(r *http.Request, role string) error {
	if s.o.Access == nil {
		return nil
	}
	err := s.o.Access.May(user(r), role)
	if err != nil {
		s.o.Log.Warn("workspace: refused: outside the user's role", "user", user(r).Name, "role", role, "path", r.URL.Path, "from", r.RemoteAddr)
	}
	return err
}
