package workspace

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/worklist"
	"github.com/billsnap/billsnap/workspace/guard"
	"github.com/billsnap/billsnap/workspace/recon"
	"github.com/billsnap/billsnap/workspace/record"
)

// apiSnapshot is a snapshot with its stored reconciliations.
type apiSnapshot struct {
	ID              string     `json:"id"`
	Status          string     `json:"status"`
	Started         time.Time  `json:"started"`
	Finished        *time.Time `json:"finished"`
	Reconciliations []apiRecon `json:"reconciliations"`
}

type apiRecon struct {
	Period       string    `json:"period"`
	AsOf         time.Time `json:"as_of"`
	ReconciledAt time.Time `json:"reconciled_at"`
	Findings     int       `json:"findings"`
	Material     bool      `json:"material"`
}

// apiSnapshots lists every snapshot, newest first, with its
// reconciliations.
func (s *Server) apiSnapshots(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	snaps, err := readmodel.Snapshots(r.Context(), db, 0)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	out := []apiSnapshot{}
	for _, sn := range snaps {
		a := apiSnapshot{ID: sn.ID, Status: sn.Status, Started: sn.Started}
		if !sn.Finished.IsZero() {
			a.Finished = &sn.Finished
		}
		out = append(out, a)
	}
	for i := range out {
		rcs, err := recon.Of(r.Context(), db, out[i].ID)
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		out[i].Reconciliations = []apiRecon{}
		for _, rc := range rcs {
			out[i].Reconciliations = append(out[i].Reconciliations, apiRecon{Period: rc.Period, AsOf: rc.AsOf, ReconciledAt: rc.At,
				Findings: rc.Findings, Material: rc.Material})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// apiFindings is the findings of a stored reconciliation as a JSON array
// of the objects `reconcile --format json` prints, each with its work
// (assignee, due, age_days, overdue), in its order (the list's filters,
// assignee included, apply; sort and page do not).
func (s *Server) apiFindings(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	f, name, err := s.parseWorkFilter(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	f.Sort, f.Page = "", 1
	if f.Snapshot == "" {
		f.Snapshot = reconcile.Latest
	}
	rep, wk, err := s.filtered(r, db, f, name)
	if err != nil {
		s.failStore(w, r, err)
		return
	}
	writeFindings(w, s.o.Log, worklist.Objects(rep, wk))
}

// apiEntity is a record, its links, its findings and the snapshots that
// hold it.
func (s *Server) apiEntity(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	v, err := s.entityOf(r, db)
	if err != nil {
		s.failEntity(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// entityOf reads the record the request names.
func (s *Server) entityOf(r *http.Request, db *sql.DB) (*record.View, error) {
	q := r.URL.Query()
	snap := q.Get("snapshot")
	if snap == "" {
		snap = reconcile.Latest
	}
	v, err := record.Load(r.Context(), db, r.PathValue("kind"), r.PathValue("id"), snap, q.Get("a"), q.Get("b"))
	if err != nil {
		return nil, err
	}
	v.From, v.To = compared(v)
	return v, s.markPending(v)
}

// compared are the snapshots the compare form offers: the diff's, else
// the two newest holding the record; "" when fewer than two hold it.
func compared(v *record.View) (from, to string) {
	switch {
	case v.Diff != nil:
		return v.Diff.A, v.Diff.B
	case len(v.In) >= 2:
		return v.In[len(v.In)-2], v.In[len(v.In)-1]
	}
	return "", ""
}

// markPending marks the findings of v's newest snapshot that a waiver
// made since their reconciliation names.
func (s *Server) markPending(v *record.View) error {
	st, err := s.standing()
	if err != nil || len(v.Findings) == 0 {
		return err
	}
	for i := range v.Findings {
		h := &v.Findings[i]
		if h.Snapshot != v.Findings[0].Snapshot {
			break
		}
		_, ok := recon.PendingOf(findings.Finding{Rule: h.Rule, EntityID: v.ID, Status: h.Status}, st)
		h.Pending = ok && !h.Waived
	}
	return nil
}

// failEntity answers an error reading a record: not found, or a failure.
func (s *Server) failEntity(w http.ResponseWriter, r *http.Request, err error) {
	var nr record.NotFoundError
	if errors.As(err, &nr) {
		s.fail(w, r, http.StatusNotFound, err)
		return
	}
	s.failStore(w, r, err)
}

// entity is the record's page.
func (s *Server) entity(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	v, err := s.entityOf(r, db)
	if err != nil {
		s.failEntity(w, r, err)
		return
	}
	rules := make([]string, len(v.Findings))
	for i, f := range v.Findings {
		rules[i] = f.Rule
	}
	threads, err := s.threadsOf(v.ID, rules)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	s.render(w, r, http.StatusOK, "entity", entityPage{View: v, Threads: threads, Back: r.URL.EscapedPath(), By: nameCookie(r), Reasons: s.o.Worklist.Reasons})
}

// readJSON decodes a JSON request body into v: application/json only (a
// form of another site cannot send it), unknown fields refused.
func readJSON(r *http.Request, v any) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		return errors.New("want a JSON body (Content-Type: application/json)")
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the JSON body: %w", err)
	}
	return nil
}

// apiWaiver is a waiver made here, as the API shows it.
type apiWaiver struct {
	ledger.Waiver
	By       string     `json:"by"`
	At       time.Time  `json:"at"`
	Lifted   bool       `json:"lifted"`
	LiftedBy string     `json:"lifted_by,omitempty"`
	LiftedAt *time.Time `json:"lifted_at,omitempty"`
}

func waiverOut(m ledger.Made) apiWaiver {
	a := apiWaiver{Waiver: m.Waiver, By: m.By, At: m.At}
	if m.Lifted != nil {
		a.Lifted, a.LiftedBy, a.LiftedAt = true, m.Lifted.By, &m.Lifted.At
	}
	return a
}

// apiWaivers lists the waivers made here, standing and lifted.
func (s *Server) apiWaivers(w http.ResponseWriter, r *http.Request) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	out := []apiWaiver{}
	for _, m := range ledger.Fold(entries).Waivers {
		out = append(out, waiverOut(m))
	}
	writeJSON(w, http.StatusOK, out)
}

// apiPostWaiver makes a waiver: JSON rule, entity_id, reason, owner,
// expires, and by (who makes it).
func (s *Server) apiPostWaiver(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ledger.Waiver
		By string `json:"by"`
	}
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	in.ID = ""
	m, err := s.waive(r, guard.Actor(r, in.By), in.Waiver)
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, waiverOut(m))
}

// apiDeleteWaiver lifts a waiver; ?by= names who.
func (s *Server) apiDeleteWaiver(w http.ResponseWriter, r *http.Request) {
	m, err := s.lift(r, guard.Actor(r, r.URL.Query().Get("by")), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	writeJSON(w, http.StatusOK, waiverOut(m))
}

// apiSignOff is a sign-off as the API shows it.
type apiSignOff struct {
	ledger.SignOff
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// apiSignOffs lists every sign-off, oldest first.
func (s *Server) apiSignOffs(w http.ResponseWriter, r *http.Request) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	out := []apiSignOff{}
	for _, so := range ledger.Fold(entries).SignOffs {
		out = append(out, apiSignOff{SignOff: so.SignOff, By: so.By, At: so.At})
	}
	writeJSON(w, http.StatusOK, out)
}

// apiPostSignOff signs off a reconciliation: JSON snapshot_id (default
// latest), period, name, role, comment.
func (s *Server) apiPostSignOff(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	var in struct {
		Snapshot string `json:"snapshot_id"`
		Period   string `json:"period"`
		Name     string `json:"name"`
		Role     string `json:"role"`
		Comment  string `json:"comment"`
	}
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	if in.Snapshot == "" {
		in.Snapshot = reconcile.Latest
	}
	signed, err := s.signOff(r, db, guard.Actor(r, in.Name), in.Snapshot, in.Period, in.Name, in.Role, in.Comment)
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, apiSignOff{SignOff: signed.SignOff, By: signed.By, At: signed.At})
}
