package workspace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/workspace/guard"
	"github.com/billsnap/billsnap/workspace/recon"
)

// fluxView is a period's flux review over one snapshot's records
// (reconcile.Flux).
type fluxView struct{ reconcile.FluxReview }

// Unexplained are the lines of v over the threshold that no current
// explanation covers.
func (v fluxView) Unexplained() []flux.Line { return flux.Unexplained(v.Lines) }

// NotOverError is an explanation of a line that is not over the
// threshold, or that the review has not: it needs none (422).
type NotOverError struct{ Msg string }

func (e *NotOverError) Error() string { return e.Msg }

// fluxOf is the flux review of period (YYYY-MM) over snapshot (latest,
// previous or an ID), explained by the ledger's explanations.
func (s *Server) fluxOf(ctx context.Context, db *sql.DB, snapshot, period string) (fluxView, error) {
	p, err := findings.ParsePeriod(period)
	if err != nil || period == "" {
		return fluxView{}, &ledger.InvalidError{Msg: fmt.Sprintf("flux: period %q: want a month as YYYY-MM", period)}
	}
	info, _, err := reconcile.Resolve(ctx, db, snapshot)
	if err != nil {
		return fluxView{}, err
	}
	entries, err := s.o.Ledger.Read()
	if err != nil {
		return fluxView{}, err
	}
	v, err := reconcile.Flux(ctx, db, info.ID, p, s.ruleIDs(), s.o.Flux, ledger.Fold(entries).Explanations)
	return fluxView{v}, err
}

// checkFlux refuses a sign-off of rc while a line of its period's flux
// review is over the threshold with no current explanation
// (*recon.ConflictError, naming the lines). A reconciliation of a whole
// snapshot has no period, and no review.
func (s *Server) checkFlux(ctx context.Context, db *sql.DB, rc recon.Recon) error {
	if rc.Period == "" {
		return nil
	}
	v, err := s.fluxOf(ctx, db, rc.Snapshot.ID, rc.Period)
	if err != nil {
		return err
	}
	un := v.Unexplained()
	if len(un) == 0 {
		return nil
	}
	names := make([]string, len(un))
	for i, l := range un {
		names[i] = fmt.Sprintf("%s %s (%s → %s)", l.Measure, l.Currency, l.Previous, l.Current)
		if l.Explanation != nil {
			names[i] += ", its explanation stale"
		}
	}
	return &recon.ConflictError{Msg: fmt.Sprintf("the flux review of %s has %s over the threshold without a current explanation: %s; explain them (/flux?period=%s) before signing off",
		rc.Period, plural.Of(len(un), "line"), strings.Join(names, "; "), rc.Period)}
}

// explain records text as the explanation of the line (measure,
// currency) of period's flux review over snapshot, with its figures as
// they are, when r's user may waive or sign off. A line that is not over
// the threshold, or that the review has not, is a *NotOverError.
func (s *Server) explain(r *http.Request, db *sql.DB, a ledger.Actor, snapshot, period, measure, currency, text string) (ledger.Explained, error) {
	err := s.mayWrite(r, access.RoleWaive, &a)
	if denied := (*access.DeniedError)(nil); errors.As(err, &denied) {
		err = s.mayWrite(r, access.RoleSignOff, &a)
	}
	if err != nil {
		return ledger.Explained{}, err
	}
	if !flux.Known(measure) {
		return ledger.Explained{}, &ledger.InvalidError{Msg: fmt.Sprintf("explanation: measure %q: want one of %s", measure, strings.Join(flux.Measures(), ", "))}
	}
	v, err := s.fluxOf(r.Context(), db, snapshot, period)
	if err != nil {
		return ledger.Explained{}, err
	}
	l, ok := flux.Find(v.Lines, measure, currency)
	if !ok || !l.Over {
		return ledger.Explained{}, &NotOverError{Msg: fmt.Sprintf("explanation: %s %q of %s is not over the threshold (%s and %s%%) in snapshot %s: it needs no explanation",
			measure, currency, v.Period, v.Threshold.Amount, v.Threshold.Percent, v.Snapshot)}
	}
	x, err := s.o.Ledger.Explain(a, ledger.Explanation{Period: v.Period, Measure: measure, Currency: currency, Previous: l.Previous.String(),
		Current: l.Current.String(), Snapshot: v.Snapshot, Text: text})
	if err == nil {
		s.o.Log.Info("workspace: flux explained", "id", x.ID, "period", x.Period, "measure", measure, "currency", currency, "by", a.By, "from", a.From)
	}
	return x, err
}

// explainStatus is the status of an error of an explanation.
func explainStatus(err error) int {
	if no := (*NotOverError)(nil); errors.As(err, &no) {
		return http.StatusUnprocessableEntity
	}
	return actionStatus(err)
}

// apiFluxLine is a line of the review as the API shows it; money as
// decimal strings, change_pct null when the month before is 0.
type apiFluxLine struct {
	Measure     string          `json:"measure"`
	Currency    string          `json:"currency"`
	Previous    string          `json:"previous"`
	Current     string          `json:"current"`
	Change      string          `json:"change"`
	ChangePct   *string         `json:"change_pct"`
	Over        bool            `json:"over_threshold"`
	Explanation *apiExplanation `json:"explanation"`
}

// apiExplanation is an explanation as the API shows it; stale when it was
// given for other figures than its line's.
type apiExplanation struct {
	ledger.Explanation
	By    string    `json:"by"`
	Auth  string    `json:"auth,omitempty"`
	At    time.Time `json:"at"`
	Stale bool      `json:"stale"`
}

// apiFlux is a period's review as the API shows it.
type apiFlux struct {
	Period      string        `json:"period"`
	Previous    string        `json:"previous_period"`
	Snapshot    string        `json:"snapshot_id"`
	Threshold   flux.Options  `json:"threshold"`
	Lines       []apiFluxLine `json:"lines"`
	Unexplained int           `json:"unexplained"`
	Notes       []string      `json:"notes"`
}

func fluxOut(v fluxView) apiFlux {
	out := apiFlux{Period: v.Period, Previous: v.Previous, Snapshot: v.Snapshot, Threshold: v.Threshold, Lines: []apiFluxLine{},
		Unexplained: len(v.Unexplained()), Notes: v.Notes}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, l := range v.Lines {
		a := apiFluxLine{Measure: l.Measure, Currency: l.Currency, Previous: l.Previous.String(), Current: l.Current.String(),
			Change: l.Change.String(), Over: l.Over}
		if l.ChangePct != "" {
			a.ChangePct = &l.ChangePct
		}
		if x := l.Explanation; x != nil {
			a.Explanation = &apiExplanation{Explanation: x.Explanation, By: x.By, Auth: x.Auth, At: x.At, Stale: l.Stale}
		}
		out.Lines = append(out.Lines, a)
	}
	return out
}

// apiFluxReview answers GET /api/flux?period=YYYY-MM&snapshot=….
func (s *Server) apiFluxReview(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	v, err := s.fluxOf(r.Context(), db, snapshotOr(r.URL.Query().Get("snapshot")), r.URL.Query().Get("period"))
	if err != nil {
		s.fail(w, r, explainStatus(err), err)
		return
	}
	writeJSON(w, http.StatusOK, fluxOut(v))
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
	writeJSON(w, http.StatusCreated, apiExplanation{Explanation: x.Explanation, By: x.By, Auth: x.Auth, At: x.At})
}

// fluxPage is the flux panel of a period.
type fluxPage struct {
	fluxView
	Asked string // the snapshot as asked ("" : the latest)
	By    string // the name this browser last acted under
}

// fluxPanel is the flux review's page: the lines, and a form for each
// line over the threshold.
func (s *Server) fluxPanel(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	q := r.URL.Query()
	v, err := s.fluxOf(r.Context(), db, snapshotOr(q.Get("snapshot")), q.Get("period"))
	if err != nil {
		s.fail(w, r, explainStatus(err), err)
		return
	}
	s.render(w, r, http.StatusOK, "flux", fluxPage{fluxView: v, Asked: q.Get("snapshot"), By: nameCookie(r)})
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

// reportFlux is the flux review of rc's period as the reports of its
// closed record show it; nil for a reconciliation of a whole snapshot.
func (s *Server) reportFlux(ctx context.Context, db *sql.DB, rc recon.Recon) (*reports.Flux, error) {
	if rc.Period == "" {
		return nil, nil
	}
	v, err := s.fluxOf(ctx, db, rc.Snapshot.ID, rc.Period)
	if err != nil {
		return nil, err
	}
	return &reports.Flux{Period: v.Period, Previous: v.Previous, Snapshot: v.Snapshot, Lines: v.Lines}, nil
}
