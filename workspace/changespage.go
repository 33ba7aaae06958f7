package workspace

import (
	"database/sql"
	"net/http"

	"github.com/billsnap/billsnap/workspace/changes"
)

// changes is the page of the changes into a snapshot (changes.Read).
func (s *Server) changes(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	p, code, err := changes.Read(r.Context(), db, r.URL.Query(), s.o.PageSize)
	if err != nil {
		s.fail(w, r, code, err)
		return
	}
	s.render(w, r, http.StatusOK, "changes", p)
}

// apiChanges is the same as JSON: the step's counts per table, and one
// page of its changes.
func (s *Server) apiChanges(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	p, code, err := changes.Read(r.Context(), db, r.URL.Query(), s.o.PageSize)
	if err != nil {
		s.fail(w, r, code, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}
