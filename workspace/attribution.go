package workspace

import (
	"net/http"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/ledger"
)

// allowKey is the configuration key that lets an unattributed write
// through once the ledger holds attributed ones; the entry records it.
const allowKey = "workspace.allow_unattributed"

// UnattributedError is an unattributed write (no identity: the name as
// typed) refused because the store's ledger already holds attributed
// entries: the workspace was started without workspace.identity, and who
// acts would be dropped from the record.
type UnattributedError struct{}

func (*UnattributedError) Error() string {
	return "this store's ledger holds attributed entries: an unattributed write is refused; serve with workspace.identity (or set " +
		allowKey + ": true, recorded in each such entry)"
}

// mayWrite checks that r's user may act in role and that a write by a
// keeps the ledger's identity: once it holds an attributed entry, an
// unattributed a is refused, or with Options.AllowUnattributed marked as
// allowed (a.Allowed).
func (s *Server) mayWrite(r *http.Request, role string, a *ledger.Actor) error {
	if err := s.g.May(r, role); err != nil || a.Auth != access.None {
		return err
	}
	entries, err := s.o.Ledger.Read()
	if err != nil {
		return nil // a ledger that does not read refuses the write itself (409, naming billsnap ledger verify)
	}
	for _, e := range entries {
		if e.Auth == access.None {
			continue
		}
		if !s.o.AllowUnattributed {
			s.o.Log.Warn("workspace: refused: an unattributed write to a ledger with attributed entries", "by", a.By, "role", role, "from", r.RemoteAddr)
			return &UnattributedError{}
		}
		a.Allowed = allowKey
		return nil
	}
	return nil
}
