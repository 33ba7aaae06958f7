package workspace

import (
	"context"
	"database/sql"
	"errors"
	"html/template"
	"net/http"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot/manifest"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/workspace/changes"
	"github.com/billsnap/billsnap/workspace/closing"
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

// rule returns the rule with the given ID; an unknown one (a user rule
// since removed) is shown by its ID.
func (s *Server) rule(id string) findings.Rule {
	for _, r := range s.o.Reconcile.Rules {
		if r.ID == id {
			return r
		}
	}
	return findings.Rule{ID: id, Title: id}
}

type overviewPage struct {
	Recon         recon.Recon
	Others        []recon.Recon // the snapshot's other reconciliations
	Verdict       string
	Rules         []overviewRule
	Totals        []currencyLine
	Dash          dashboard     // the tiles and charts at the top
	Counts        template.HTML // the open findings per snapshot of the trend, by severity
	TrendPoints   int           // reconciliations in the trend: one draws no line, and says so
	Notes         manifest.FieldNotes
	Incomplete    []manifest.TableStats
	SignOffs      []signOffView
	Latest        *signOffView  // the period's newest sign-off, of any snapshot
	Close         *closing.View // the period's close, when it is closed
	Reopens       []ledger.Entry
	NotReconciled string
	Note          string        // why the reconciliation shown is not the latest snapshot's
	Pending       int           // open findings waived since this reconciliation
	NoAmount      bool          // a line whose findings carry no money shows "—"
	Nameless      int           // open findings whose customer's name is not known
	Changes       *changes.Step // the latest complete snapshot's changes
}

type overviewRule struct {
	Rule    findings.Rule
	Lines   []ruleLine
	Pending int // its open findings waived since this reconciliation
}

// ruleLine is a rule's findings in one currency: Open counts the open
// findings not waived; NoAmount, that they carry no money (the rules that
// name a record, not a sum: their amount is 0), so "—" shows, not 0.00.
type ruleLine struct {
	recon.RuleTotal
	Open     int
	NoAmount bool
}

type currencyLine struct {
	Currency   string
	Net, Gross string // "—" when the open findings carry no money
}

type signOffView struct {
	ledger.Signed
	Changed bool // the findings differ from what was signed
	Current bool // it signs this very reconciliation
}

// overview shows the latest reconciliation (or the one asked for).
func (s *Server) overview(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	ctx := r.Context()
	rc, all, note, err := recon.Shown(ctx, db, r.FormValue("snapshot"), r.FormValue("period"))
	var nr *reconcile.NotReconciledError
	if errors.As(err, &nr) {
		s.render(w, r, http.StatusOK, "overview", overviewPage{NotReconciled: nr.Error(), Recon: recon.Recon{Snapshot: findings.SnapshotInfo{ID: nr.Snapshot}}})
		return
	}
	if err != nil {
		s.failStore(w, r, err)
		return
	}
	p := overviewPage{Recon: rc, Note: note}
	for _, o := range all {
		if o.Period != rc.Period {
			p.Others = append(p.Others, o)
		}
	}
	if err := s.fillOverview(r, db, &p); err != nil {
		s.failStore(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "overview", p)
}

// fillOverview reads the totals, trend, notes and sign-offs of p.Recon.
func (s *Server) fillOverview(r *http.Request, db *sql.DB, p *overviewPage) error {
	ctx := r.Context()
	rows, wk, err := s.overviewRows(ctx, db, p.Recon)
	if err != nil {
		return err
	}
	ts := readmodel.OverviewTotals(rows, s.ruleIDs())
	open := 0
	p.Verdict = "OK"
	if p.Recon.Material {
		p.Verdict = "MATERIAL"
	}
	for _, t := range ts {
		if t.Rule == findings.IncompleteRule && t.Count > 0 {
			p.Verdict = "UNTRUSTED"
		}
		if n := len(p.Rules); n == 0 || p.Rules[n-1].Rule.ID != t.Rule {
			p.Rules = append(p.Rules, overviewRule{Rule: s.rule(t.Rule)})
		}
		l := ruleLine{RuleTotal: t, Open: t.Count - t.Waived}
		l.NoAmount = l.Open > 0 && t.Gross == 0
		open += l.Open
		p.NoAmount = p.NoAmount || l.NoAmount
		p.Rules[len(p.Rules)-1].Lines = append(p.Rules[len(p.Rules)-1].Lines, l)
	}
	// The header's count is the rules table's Open added up, so that the
	// two agree even for a reconciliation stored when its count took the
	// waived findings in.
	p.Recon.Findings = open
	p.Totals = totalLines(ts)
	if p.Nameless, err = readmodel.Nameless(ctx, db, p.Recon.Snapshot.ID, p.Recon.Period, findings.IncompleteRule); err != nil {
		return err
	}
	pend := readmodel.OverviewPending(rows)
	for i := range p.Rules {
		p.Rules[i].Pending = pend[p.Rules[i].Rule.ID]
		p.Pending += p.Rules[i].Pending
	}
	period, _ := findings.ParsePeriod(p.Recon.Period)
	if p.Recon.Period == "" {
		period = nil
	}
	trend, err := reconcile.Trend(ctx, db, period, p.Recon.Snapshot, max(s.o.Trend, 2))
	if err != nil {
		return err
	}
	p.TrendPoints = len(trend)
	p.Counts, _ = reports.TrendCharts(trend)
	if err := s.fillDashboard(ctx, db, p, rows, wk, trend); err != nil {
		return err
	}
	tables, err := readmodel.Manifest(ctx, db, p.Recon.Snapshot.ID)
	if err != nil {
		return err
	}
	fields, err := readmodel.Fields(ctx, db, p.Recon.Snapshot.ID)
	if err != nil {
		return err
	}
	p.Notes = manifest.Notes(fields, tables)
	if p.Changes, err = changes.Overview(ctx, db); err != nil {
		return err
	}
	for _, t := range tables {
		if !t.Complete || t.Problem != "" {
			p.Incomplete = append(p.Incomplete, t)
		}
	}
	if err := s.fillSignOffs(r, db, p); err != nil {
		return err
	}
	p.Close, p.Reopens, err = s.closer().State(ctx, db, p.Recon.Period)
	return err
}

// totalLines are ts's totals per currency; a currency whose open,
// unwaived findings carry no money says "—".
func totalLines(ts []recon.RuleTotal) []currencyLine {
	totals, open := recon.CurrencyTotals(ts), map[string]int{}
	for _, t := range ts {
		open[t.Currency] += t.Count - t.Waived
	}
	var out []currencyLine
	for _, c := range findings.Currencies(totals) {
		l := currencyLine{Currency: c, Net: totals[c].Net.Grouped(), Gross: totals[c].Gross.Grouped()}
		if open[c] > 0 && totals[c].Gross == 0 {
			l.Net, l.Gross = findings.NoMoney, findings.NoMoney
		}
		out = append(out, l)
	}
	return out
}

// fillSignOffs lists the sign-offs of the period, marking those whose
// findings are no longer what they signed.
func (s *Server) fillSignOffs(r *http.Request, db *sql.DB, p *overviewPage) error {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		return err
	}
	var ofPeriod []ledger.Signed
	for _, so := range ledger.Fold(entries).SignOffs {
		if so.Period == p.Recon.Period {
			ofPeriod = append(ofPeriod, so)
		}
	}
	if len(ofPeriod) == 0 {
		return nil
	}
	d, _, err := recon.Digest(r.Context(), db, p.Recon)
	if err != nil {
		return err
	}
	for _, so := range ofPeriod {
		v := signOffView{Signed: so, Current: so.Snapshot == p.Recon.Snapshot.ID, Changed: so.Digest != d}
		if v.Current {
			p.SignOffs = append(p.SignOffs, v)
		}
		p.Latest = &v
	}
	return nil
}
