package workspace

import (
	"database/sql"
	"errors"
	"net/http"
	"net/url"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/workspace/fluxreview"
	"github.com/billsnap/billsnap/workspace/guard"
)

// review is the workspace's flux reviewer: its ledger, rules and
// threshold.
func (s *Server) review() fluxreview.Reviewer {
	return fluxreview.Reviewer{Ledger: s.o.Ledger, Log: s.o.Log, Rules: s.ruleIDs(), Options: s.o.Flux}
}

// explain records text as the explanation of the line (measure,
// currency) of period's flux review over snapshot, with its figures as
// they are, when r's user may waive or sign off (Reviewer.Explain).
func (s *Server) explain(r *http.Request, db *sql.DB, a ledger.Actor, snapshot, period, measure, currency, text string) (ledger.Explained, error) {
	err := s.mayWrite(r, access.RoleWaive, &a)
	if denied := (*access.DeniedError)(nil); errors.As(err, &denied) {
		err = s.mayWrite(r, access.RoleSignOff, &a)
	}
	if err != nil {
		return ledger.Explained{}, err
	}
	return s.review().Explain(r.Context(), db, a, snapshot, period, measure, currency, text)
}

// explainStatus is the status of an error of an explanation.
func explainStatus(err error) int {
	if no := (*fluxreview.NotOverError)(nil); errors.As(err, &no) {
		return http.StatusUnprocessableEntity
	}
	return actionStatus(err)
}

// apiFluxReview answers GET /api/flux?period=YYYY-MM&snapshot=….
func (s *Server) apiFluxReview(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	v, err := s.review().Of(r.Context(), db, snapshotOr(r.URL.Query().Get("snapshot")), r.URL.Query().Get("period"))
	if err != nil {
		s.fail(w, r, explainStatus(err), err)
		return
	}
	writeJSON(w, http.StatusOK, fluxreview.Out(v))
}

// snapshotOr is the snapshot asked for, the latest by default.
func snapshotOr(snap string) string {
	if snap == "" {
		return reconcile.Latest
	}
	return snap
}

// apiPostExplanation explains a line: JSON measure, currency, text, and
// snapshot_id (default latest) and by (without identity).
func (s *Server) apiPostExplanation(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	var in struct {
		Measure  string `json:"measure"`
		Currency string `json:"currency"`
		Text     string `json:"text"`
		Snapshot string `json:"snapshot_id"`
		By       string `json:"by"`
	}
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	x, err := s.explain(r, db, guard.Actor(r, in.By), snapshotOr(in.Snapshot), r.PathValue("period"), in.Measure, in.Currency, in.Text)
	if err != nil {
		s.fail(w, r, explainStatus(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, fluxreview.APIExplanation{Explanation: x.Explanation, By: x.By, Auth: x.Auth, At: x.At})
}

// fluxPage is the flux panel of a period.
type fluxPage struct {
	fluxreview.View
	Asked string // the snapshot as asked ("" : the latest)
	By    string // the name this browser last acted under
}

// fluxPanel is the flux review's page: the lines, and a form for each
// line over the threshold.
func (s *Server) fluxPanel(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	q := r.URL.Query()
	v, err := s.review().Of(r.Context(), db, snapshotOr(q.Get("snapshot")), q.Get("period"))
	if err != nil {
		s.fail(w, r, explainStatus(err), err)
		return
	}
	s.render(w, r, http.StatusOK, "flux", fluxPage{View: v, Asked: q.Get("snapshot"), By: nameCookie(r)})
}

// postExplanation takes a line's explanation form.
func (s *Server) postExplanation(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	f, period := r.PostForm, r.PathValue("period")
	_, err := s.explain(r, db, guard.Actor(r, f.Get("by")), snapshotOr(f.Get("snapshot")), period, f.Get("measure"), f.Get("currency"), f.Get("text"))
	if err != nil {
		s.fail(w, r, explainStatus(err), err)
		return
	}
	rememberName(w, f.Get("by"))
	back := guard.LocalPath(f.Get("back"))
	if back == "/" {
		back = "/flux?" + url.Values{"period": {period}}.Encode()
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
