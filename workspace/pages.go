package workspace

import (
	"context"
	"database/sql"
	"errors"
	"net/http"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/workspace/changes"
	"github.com/billsnap/billsnap/workspace/closing"
	"github.com/billsnap/billsnap/workspace/overview"
	"github.com/billsnap/billsnap/workspace/recon"
)

func (s *Server) routes() {
	m := s.mux
	m.Handle("GET /assets/", assets())
	m.HandleFunc("GET /login", s.g.LoginForm)
	m.HandleFunc("POST /login", s.g.Login)
	m.HandleFunc("POST /logout", s.g.Logout)
	m.HandleFunc("GET /{$}", s.withDB(s.overview))
	m.HandleFunc("GET /findings", s.withDB(s.findings))
	m.HandleFunc("GET /findings.csv", s.withDB(s.download("csv")))
	m.HandleFunc("GET /findings.xlsx", s.withDB(s.download("xlsx")))
	m.HandleFunc("GET /entities/{kind}/{id...}", s.withDB(s.entity))
	m.HandleFunc("GET /changes", s.withDB(s.changes))
	m.HandleFunc("GET /waive", s.waiveForm)
	m.HandleFunc("GET /waivers", s.waivers)
	m.HandleFunc("POST /waivers", s.postWaiver)
	m.HandleFunc("POST /waivers/{id}/lift", s.postLift)
	m.HandleFunc("POST /signoffs", s.withDB(s.postSignOff))
	m.HandleFunc("GET /audit", s.audit)
	m.HandleFunc("GET /api/snapshots", s.withDB(s.apiSnapshots))
	m.HandleFunc("GET /api/findings", s.withDB(s.apiFindings))
	m.HandleFunc("GET /api/entities/{kind}/{id...}", s.withDB(s.apiEntity))
	m.HandleFunc("GET /api/changes", s.withDB(s.apiChanges))
	m.HandleFunc("GET /api/waivers", s.apiWaivers)
	m.HandleFunc("POST /api/waivers", s.apiPostWaiver)
	m.HandleFunc("DELETE /api/waivers/{id}", s.apiDeleteWaiver)
	m.HandleFunc("GET /api/signoffs", s.apiSignOffs)
	m.HandleFunc("POST /api/signoffs", s.withDB(s.apiPostSignOff))
	m.HandleFunc("GET /api/periods/{period}", s.withDB(s.apiPeriod))
	m.HandleFunc("POST /api/periods/{period}/close", s.withDB(s.apiPostClose))
	m.HandleFunc("POST /api/periods/{period}/reopen", s.apiPostReopen)
	m.HandleFunc("POST /periods/{period}/close", s.withDB(s.postClose))
	m.HandleFunc("GET /periods/{period}/evidence.zip", s.withDB(s.evidencePack))
	m.HandleFunc("POST /periods/{period}/reopen", s.postReopen)
	m.HandleFunc("GET /assign", s.assignForm)
	m.HandleFunc("POST /assignments", s.withDB(s.postAssignment))
	m.HandleFunc("GET /api/assignments", s.apiAssignments)
	m.HandleFunc("POST /api/assignments", s.withDB(s.apiPostAssignment))
	m.HandleFunc("GET /api/aging", s.withDB(s.apiAging))
	m.HandleFunc("POST /comments", s.postComment)
	m.HandleFunc("GET /api/comments", s.apiComments)
	m.HandleFunc("POST /api/comments", s.apiPostComment)
	m.HandleFunc("POST /resolutions", s.postResolution)
	m.HandleFunc("GET /api/resolutions", s.apiResolutions)
	m.HandleFunc("POST /api/resolutions", s.apiPostResolution)
	m.HandleFunc("GET /flux", s.withDB(s.fluxPanel))
	m.HandleFunc("POST /flux/{period}/explanations", s.withDB(s.postExplanation))
	m.HandleFunc("GET /api/flux", s.withDB(s.apiFluxReview))
	m.HandleFunc("POST /api/flux/{period}/explanations", s.withDB(s.apiPostExplanation))
}

// withDB gives h the read model, held for the request and let go
// however h ends (once). A GET whose read met a publish switching the
// files under it (readmodel.TornRead) is run again, up to readTries times
// in all, before its error is answered.
func (s *Server) withDB(h func(http.ResponseWriter, *http.Request, *sql.DB)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for try := 1; ; try++ {
			rr, at := r, &attempt{}
			if r.Method == http.MethodGet && try < readTries {
				rr = r.WithContext(context.WithValue(r.Context(), attemptKey{}, at))
			}
			if !s.once(w, rr, h) || at.err == nil {
				return
			}
			s.o.Log.Info("workspace: a read met a publish; reading again", "path", r.URL.Path, "try", try, "error", at.err)
		}
	}
}

// once runs h with the read model, held until h ends, however it ends (a
// panic included, which net/http recovers: a model held past its request
// would keep Close, and so serve's shutdown, waiting). False when the
// model could not be had, which is answered.
func (s *Server) once(w http.ResponseWriter, r *http.Request, h func(http.ResponseWriter, *http.Request, *sql.DB)) bool {
	db, done, err := s.model.get(r.Context())
	if err != nil {
		s.failStore(w, r, err)
		return false
	}
	defer done()
	h(w, r, db)
	return true
}

// readTries is how many times a GET is run when its reads meet publishes.
const readTries = 4

// attempt holds the torn read that ended a try of a GET, instead of its
// answer.
type attempt struct{ err error }

type attemptKey struct{}

// ruleIDs are the rules' IDs in their order.
func (s *Server) ruleIDs() []string { return recon.RuleIDs(s.o.Reconcile.Rules) }

// rule returns the rule with the given ID (recon.Rule).
func (s *Server) rule(id string) findings.Rule { return recon.Rule(s.o.Reconcile.Rules, id) }

// overviewPage is the overview as its page shows it: the
// reconciliation's figures (overview.Page), the period's close and the
// latest changes.
type overviewPage struct {
	overview.Page
	Close   *closing.View // the period's close, when it is closed
	Reopens []ledger.Entry
	Changes *changes.Step // the latest complete snapshot's changes
}

// overview shows the latest reconciliation (or the one asked for).
func (s *Server) overview(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	ctx := r.Context()
	rc, all, note, err := recon.Shown(ctx, db, r.FormValue("snapshot"), r.FormValue("period"))
	var nr *reconcile.NotReconciledError
	if errors.As(err, &nr) {
		s.render(w, r, http.StatusOK, "overview", overviewPage{Page: overview.Page{NotReconciled: nr.Error(), Recon: recon.Recon{Snapshot: findings.SnapshotInfo{ID: nr.Snapshot}}}})
		return
	}
	if err != nil {
		s.failStore(w, r, err)
		return
	}
	p := overviewPage{Page: overview.Page{Recon: rc, Note: note}}
	for _, o := range all {
		if o.Period != rc.Period {
			p.Others = append(p.Others, o)
		}
	}
	if err := s.fillOverview(ctx, db, &p); err != nil {
		s.failStore(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "overview", p)
}

// fillOverview reads p's figures (overview.Reader.Fill), the latest
// complete snapshot's changes and the period's close.
func (s *Server) fillOverview(ctx context.Context, db *sql.DB, p *overviewPage) error {
	rd := overview.Reader{Ledger: s.o.Ledger, Now: s.o.Now, Rules: s.o.Reconcile.Rules, Trend: s.o.Trend, Flux: &s.flux, FluxOptions: s.o.Flux}
	err := rd.Fill(ctx, db, &p.Page)
	if err == nil {
		p.Changes, err = changes.Overview(ctx, db)
	}
	if err == nil {
		p.Close, p.Reopens, err = s.closer().State(ctx, db, p.Recon.Period)
	}
	return err
}
