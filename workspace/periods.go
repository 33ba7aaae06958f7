package workspace

import (
	"bytes"
	"database/sql"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/evidence"
	"github.com/billsnap/billsnap/internal/buildinfo"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/workspace/closing"
	"github.com/billsnap/billsnap/workspace/guard"
)

// closer is the workspace's Closer: its ledger, store, rules and flux
// review.
func (s *Server) closer() closing.Closer {
	return closing.Closer{Ledger: s.o.Ledger, Log: s.o.Log, Now: s.o.Now, Store: s.o.Store, Rules: s.o.Reconcile.Rules, Flux: s.review().ForReports}
}

// closePeriod closes period for a, when r's user may (Closer.Close).
func (s *Server) closePeriod(r *http.Request, db *sql.DB, a ledger.Actor, period, comment string) (ledger.Closed, error) {
	if err := s.mayWrite(r, access.RoleClose, &a); err != nil {
		return ledger.Closed{}, err
	}
	return s.closer().Close(r.Context(), db, a, period, comment)
}

// reopenPeriod reopens period for reason, when r's user may close.
func (s *Server) reopenPeriod(r *http.Request, a ledger.Actor, period, reason string) (ledger.Closed, error) {
	if err := s.mayWrite(r, access.RoleClose, &a); err != nil {
		return ledger.Closed{}, err
	}
	return s.closer().Reopen(a, period, reason)
}

// apiClose is a close as the API shows it.
type apiClose struct {
	ledger.Close
	By   string    `json:"by"`
	Auth string    `json:"auth"`
	At   time.Time `json:"at"`
}

// apiLater is a reconciliation of a closed period stored after its close.
type apiLater struct {
	Snapshot     string    `json:"snapshot_id"`
	ReconciledAt time.Time `json:"reconciled_at"`
	Findings     int       `json:"findings"`
}

// apiPeriodState is a period's close, and what came after it.
type apiPeriodState struct {
	Period      string         `json:"period"`
	Closed      bool           `json:"closed"`
	Close       *apiClose      `json:"close"`
	Adjustments []ledger.Entry `json:"adjustments"`
	Later       []apiLater     `json:"reconciled_after"`
	Reopened    []ledger.Entry `json:"reopened"`
}

// apiPeriod says whether a period is closed: the close, its post-close
// adjustments, the reconciliations after it that differ, and the
// period's reopenings.
func (s *Server) apiPeriod(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	period := r.PathValue("period")
	v, reopens, err := s.closer().State(r.Context(), db, period)
	if err != nil {
		s.failStore(w, r, err)
		return
	}
	out := apiPeriodState{Period: period, Adjustments: []ledger.Entry{}, Later: []apiLater{}, Reopened: reopens}
	if out.Reopened == nil {
		out.Reopened = []ledger.Entry{}
	}
	if v != nil {
		out.Closed, out.Close = true, closeOut(v.Closed)
		if v.Adjustments != nil {
			out.Adjustments = v.Adjustments
		}
		for _, rc := range v.Later {
			out.Later = append(out.Later, apiLater{Snapshot: rc.Snapshot.ID, ReconciledAt: rc.At, Findings: rc.Findings})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func closeOut(c ledger.Closed) *apiClose {
	return &apiClose{Close: c.Close, By: c.By, Auth: c.Auth, At: c.At}
}

// apiPostClose closes a period: JSON comment, and by without identity.
func (s *Server) apiPostClose(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	var in struct{ Comment, By string }
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	c, err := s.closePeriod(r, db, guard.Actor(r, in.By), r.PathValue("period"), in.Comment)
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, closeOut(c))
}

// apiPostReopen reopens a closed period: JSON reason, and by without
// identity.
func (s *Server) apiPostReopen(w http.ResponseWriter, r *http.Request) {
	var in struct{ Reason, By string }
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	c, err := s.reopenPeriod(r, guard.Actor(r, in.By), r.PathValue("period"), in.Reason)
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"close": closeOut(c), "reopened": c.Reopened})
}

// postClose takes the overview's close form.
func (s *Server) postClose(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	period := r.PathValue("period")
	c, err := s.closePeriod(r, db, guard.Actor(r, r.PostFormValue("by")), period, r.PostFormValue("comment"))
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	rememberName(w, r.PostFormValue("by"))
	http.Redirect(w, r, "/?"+url.Values{"snapshot": {c.Snapshot}, "period": {period}}.Encode(), http.StatusSeeOther)
}

// postReopen takes the overview's reopen form.
func (s *Server) postReopen(w http.ResponseWriter, r *http.Request) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	period := r.PathValue("period")
	if _, err := s.reopenPeriod(r, guard.Actor(r, r.PostFormValue("by")), period, r.PostFormValue("reason")); err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	rememberName(w, r.PostFormValue("by"))
	http.Redirect(w, r, "/?"+url.Values{"period": {period}}.Encode(), http.StatusSeeOther)
}

// evidencePack is the evidence pack of a closed period, as billsnap
// evidence writes it.
func (s *Server) evidencePack(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	period := r.PathValue("period")
	var b bytes.Buffer
	_, err := evidence.Write(r.Context(), &b, evidence.Source{Root: s.o.Store.Out, ParquetDir: filepath.Join(s.o.Store.Out, s.o.Store.Parquet.Dir),
		Ledger: s.o.Ledger, Figures: readmodel.ManifestOf(db), Check: snapshot.CheckFiles(s.o.Store), Period: period, Software: "billsnap " + buildinfo.Version(), Now: s.o.Now()})
	var nc *evidence.NotClosedError
	switch {
	case errors.As(err, &nc):
		s.fail(w, r, http.StatusNotFound, err)
		return
	case err != nil:
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="billsnap-evidence-`+period+`.zip"`)
	w.Write(b.Bytes())
}
