package workspace

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/workspace/guard"
)

// resolve records how the finding of rule about entityID was resolved:
// a reason code of the catalogue and a note, by a, when r's user may
// waive. A code the catalogue lacks, an unknown rule or a record no
// stored finding of it names is an *UnknownError (422). It changes no
// finding's status: the next reconciliation says whether it is gone.
func (s *Server) resolve(r *http.Request, a ledger.Actor, x ledger.Resolution) (ledger.Resolved, error) {
	if err := s.mayWrite(r, access.RoleWaive, &a); err != nil {
		return ledger.Resolved{}, err
	}
	if err := x.Check(); err != nil {
		return ledger.Resolved{}, err
	}
	if err := s.checkReasonCode("resolution", x.ReasonCode); err != nil {
		return ledger.Resolved{}, err
	}
	if !slices.Contains(s.ruleIDs(), x.Rule) {
		return ledger.Resolved{}, &UnknownError{Msg: fmt.Sprintf("resolution: no rule %q", x.Rule)}
	}
	if err := s.checkNamed(r.Context(), x.Rule, x.EntityID); err != nil {
		if unnamed := (*UnnamedError)(nil); errors.As(err, &unnamed) {
			err = &UnknownError{Msg: fmt.Sprintf("resolution: no finding of rule %s names record %q", x.Rule, x.EntityID)}
		}
		return ledger.Resolved{}, err
	}
	out, err := s.o.Ledger.Resolve(a, x)
	if err == nil {
		s.o.Log.Info("workspace: resolution", "id", out.ID, "rule", x.Rule, "entity_id", x.EntityID, "reason_code", x.ReasonCode, "by", a.By, "from", a.From)
	}
	return out, err
}

// apiResolution is a resolution as the API shows it.
type apiResolution struct {
	ledger.Resolution
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// apiPostResolution records a resolution: JSON rule, entity_id,
// reason_code, note, and by (who, without identity). 201 with it.
func (s *Server) apiPostResolution(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ledger.Resolution
		By string `json:"by"`
	}
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	in.ID = ""
	x, err := s.resolve(r, guard.Actor(r, in.By), in.Resolution)
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, apiResolution{Resolution: x.Resolution, By: x.By, At: x.At})
}

// apiResolutions lists the resolutions that stand, one per finding.
func (s *Server) apiResolutions(w http.ResponseWriter, r *http.Request) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	out := []apiResolution{}
	for _, x := range ledger.Resolutions(entries) {
		out = append(out, apiResolution{Resolution: x.Resolution, By: x.By, At: x.At})
	}
	slices.SortFunc(out, func(a, b apiResolution) int { return a.At.Compare(b.At) })
	writeJSON(w, http.StatusOK, out)
}

// postResolution takes the resolution form of a record's page.
func (s *Server) postResolution(w http.ResponseWriter, r *http.Request) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	f := r.PostForm
	x := ledger.Resolution{Rule: f.Get("rule"), EntityID: f.Get("entity_id"), ReasonCode: f.Get("reason_code"), Note: f.Get("note")}
	if _, err := s.resolve(r, guard.Actor(r, f.Get("by")), x); err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	rememberName(w, f.Get("by"))
	http.Redirect(w, r, guard.LocalPath(f.Get("back"))+"#comments", http.StatusSeeOther)
}
