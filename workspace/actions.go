package workspace

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/worklist"
	"github.com/billsnap/billsnap/workspace/guard"
	"github.com/billsnap/billsnap/workspace/recon"
)

// checkRule refuses a waiver of a rule that does not exist.
func (s *Server) checkRule(id string) error {
	if id != "" && !slices.Contains(s.ruleIDs(), id) {
		return &ledger.InvalidError{Msg: fmt.Sprintf("waiver: no rule %q", id)}
	}
	return nil
}

// checkReasonCode refuses a reason code (of what: a waiver, a
// resolution) that the catalogue (worklist.reasons) does not have, as an
// *UnknownError (422); "" is no code, and passes.
func (s *Server) checkReasonCode(what, code string) error {
	if code == "" {
		return nil
	}
	if err := s.o.Worklist.CheckCode(what, code); err != nil {
		return &UnknownError{Msg: err.Error()}
	}
	return nil
}

// waive records w by a, checked, when r's user may waive and a stored
// finding is of w's rule and names its record.
func (s *Server) waive(r *http.Request, a ledger.Actor, w ledger.Waiver) (ledger.Made, error) {
	if err := s.mayWrite(r, access.RoleWaive, &a); err != nil {
		return ledger.Made{}, err
	}
	if err := s.checkRule(w.Rule); err != nil {
		return ledger.Made{}, err
	}
	if err := w.Check(); err != nil {
		return ledger.Made{}, err
	}
	if err := s.checkReasonCode("waiver", w.ReasonCode); err != nil {
		return ledger.Made{}, err
	}
	if err := s.checkNamed(r.Context(), w.Rule, w.EntityID); err != nil {
		return ledger.Made{}, err
	}
	m, err := s.o.Ledger.Waive(a, w)
	if err == nil {
		s.o.Log.Info("workspace: waiver", "id", m.ID, "rule", m.Rule, "entity_id", m.EntityID, "by", m.By, "from", a.From)
	}
	return m, err
}

// lift lifts waiver id by a, when r's user may waive.
func (s *Server) lift(r *http.Request, a ledger.Actor, id string) (ledger.Made, error) {
	if err := s.mayWrite(r, access.RoleWaive, &a); err != nil {
		return ledger.Made{}, err
	}
	m, err := s.o.Ledger.Lift(a, id)
	if err == nil {
		s.o.Log.Info("workspace: waiver lifted", "id", id, "by", a.By, "from", a.From)
	}
	return m, err
}

// signOff signs off the reconciliation (snap, period) for a, when r's
// user may sign off and its period's flux review is explained (fluxreview.Reviewer.Check);
// with identity, the name signed is the user's.
func (s *Server) signOff(r *http.Request, db *sql.DB, a ledger.Actor, snap, period, name, role, comment string) (ledger.Signed, error) {
	if err := s.mayWrite(r, access.RoleSignOff, &a); err != nil {
		return ledger.Signed{}, err
	}
	if a.Auth != access.None {
		name = a.By
	}
	rc, _, err := recon.Find(r.Context(), db, snap, period)
	if err != nil {
		return ledger.Signed{}, err
	}
	if err := s.review().Check(r.Context(), db, rc); err != nil {
		return ledger.Signed{}, err
	}
	so, err := recon.SignOffOf(r.Context(), db, rc, s.ruleIDs())
	if err != nil {
		return ledger.Signed{}, err
	}
	so.Name, so.Role, so.Comment = strings.TrimSpace(name), strings.TrimSpace(role), strings.TrimSpace(comment)
	signed, err := s.o.Ledger.SignOff(a, so)
	if err == nil {
		s.o.Log.Info("workspace: sign-off", "id", signed.ID, "snapshot", signed.Snapshot, "period", signed.Period, "by", a.By, "name", signed.Name)
	}
	return signed, err
}

// actionStatus is the status of an error of an action: nothing to act on,
// the user's mistake (a waiver that names no finding: 422), a conflict (a ledger that does not verify among
// them), or a failure.
func actionStatus(err error) int {
	var invalid *ledger.InvalidError
	var nr *reconcile.NotReconciledError
	var us *reconcile.UnknownSnapshotError
	var denied *access.DeniedError
	var conflict *recon.ConflictError
	var closed *ledger.ClosedError
	var unnamed *UnnamedError
	var unattributed *UnattributedError
	var unknown *UnknownError
	switch {
	case errors.As(err, &unattributed):
		return http.StatusForbidden
	case errors.As(err, &unnamed), errors.As(err, &unknown):
		return http.StatusUnprocessableEntity
	case errors.As(err, &denied):
		return http.StatusForbidden
	case errors.As(err, &conflict), errors.As(err, &closed), errors.Is(err, ledger.ErrNotClosed), unverified(err):
		return http.StatusConflict
	case errors.Is(err, ledger.ErrNoWaiver), errors.As(err, &nr), errors.As(err, &us):
		return http.StatusNotFound
	case errors.As(err, &invalid):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// unverified tells whether err is a ledger that does not verify as it
// stands: a write refused, or a read of a line that is not a valid entry
// or of a ledger cut short of its recorded head.
func unverified(err error) bool {
	var refused *ledger.RefusedError
	var malformed *ledger.MalformedError
	var head *ledger.HeadError
	return errors.As(err, &refused) || errors.As(err, &malformed) || errors.As(err, &head)
}

type waivePage struct {
	Rule, EntityID, Back, By string
	Rules                    []string
	Reasons                  []worklist.Reason // the catalogue, for the reason code
	Standing                 *ledger.Made      // the waiver that stands for it already: no form then
}

// waiveForm is the form that waives a finding, unless a waiver of it
// stands already.
func (s *Server) waiveForm(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := waivePage{Rule: q.Get("rule"), EntityID: q.Get("entity_id"), Back: guard.LocalPath(q.Get("back")), By: nameCookie(r), Rules: s.ruleIDs(), Reasons: s.o.Worklist.Reasons}
	st, err := s.standing()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	if m, ok := st[readmodel.WaiverKey(p.Rule, p.EntityID)]; ok {
		p.Standing = &m
	}
	s.render(w, r, http.StatusOK, "waive", p)
}

// postWaiver takes the waive form.
func (s *Server) postWaiver(w http.ResponseWriter, r *http.Request) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	f := r.PostForm
	_, err := s.waive(r, guard.Actor(r, f.Get("by")), ledger.Waiver{Rule: f.Get("rule"), EntityID: f.Get("entity_id"),
		Reason: strings.TrimSpace(f.Get("reason")), ReasonCode: f.Get("reason_code"), Owner: strings.TrimSpace(f.Get("owner")), Expires: f.Get("expires")})
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	rememberName(w, f.Get("by"))
	http.Redirect(w, r, guard.LocalPath(f.Get("back")), http.StatusSeeOther)
}

// postLift takes a lift button.
func (s *Server) postLift(w http.ResponseWriter, r *http.Request) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	if _, err := s.lift(r, guard.Actor(r, r.PostFormValue("by")), r.PathValue("id")); err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	http.Redirect(w, r, guard.LocalPath(r.PostFormValue("back")), http.StatusSeeOther)
}

// postSignOff takes the sign-off form.
func (s *Server) postSignOff(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	f := r.PostForm
	signed, err := s.signOff(r, db, guard.Actor(r, f.Get("name")), f.Get("snapshot"), f.Get("period"), f.Get("name"), f.Get("role"), f.Get("comment"))
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	rememberName(w, f.Get("name"))
	v := url.Values{"snapshot": {signed.Snapshot}}
	if signed.Period != "" {
		v.Set("period", signed.Period)
	}
	http.Redirect(w, r, "/?"+v.Encode(), http.StatusSeeOther)
}

type waiversPage struct {
	Waivers []ledger.Made
	Back    string
}

// waivers lists the waivers made here, standing and lifted.
func (s *Server) waivers(w http.ResponseWriter, r *http.Request) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	ws := ledger.Fold(entries).Waivers
	slices.Reverse(ws)
	s.render(w, r, http.StatusOK, "waivers", waiversPage{Waivers: ws, Back: "/waivers"})
}

type auditPage struct {
	Entries []ledger.Entry
	Head    ledger.Head
	Broken  string // the first line that does not fit the chain
}

// audit lists every action, newest first, and whether the ledger's chain
// holds.
func (s *Server) audit(w http.ResponseWriter, r *http.Request) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p := auditPage{Entries: entries}
	if p.Head, err = s.o.Ledger.Verify(); err != nil {
		p.Broken = err.Error()
	}
	slices.Reverse(entries)
	s.render(w, r, http.StatusOK, "audit", p)
}

// nameCookie is the name this browser last acted under, to fill the forms.
func nameCookie(r *http.Request) string {
	c, err := r.Cookie("billsnap_name")
	if err != nil {
		return ""
	}
	v, _ := url.QueryUnescape(c.Value)
	return v
}

func rememberName(w http.ResponseWriter, name string) {
	if name = strings.TrimSpace(name); name != "" {
		http.SetCookie(w, &http.Cookie{Name: "billsnap_name", Value: url.QueryEscape(name), Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, MaxAge: 365 * 24 * 3600})
	}
}
