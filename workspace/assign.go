package workspace

import (
	"cmp"
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/workspace/guard"
	"github.com/billsnap/billsnap/workspace/recon"
)

// assignIn is what an assignment asks: one finding (rule and entity_id)
// or every finding of the latest reconciliation a filter keeps, given to
// assignee, due on due ("": by the worklist's policy, per severity).
type assignIn struct {
	Rule     string        `json:"rule"`
	EntityID string        `json:"entity_id"`
	Filter   *assignFilter `json:"filter"`
	Assignee string        `json:"assignee"`
	Due      string        `json:"due"`
	By       string        `json:"by"` // who assigns, without identity
}

// assignFilter is the findings list's filter, as an assignment takes it.
type assignFilter struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Status   string `json:"status"`
	Currency string `json:"currency"`
	Q        string `json:"q"`
	Assignee string `json:"assignee"`
}

// UnknownError is an assignment that names what the workspace does not
// know: a user, a rule or a record (422).
type UnknownError struct{ Msg string }

func (e *UnknownError) Error() string { return e.Msg }

// assignOut is an assignment as the API answers it.
type assignOut struct {
	ledger.Assignment
	By string `json:"by"`
}

// assign records in by a, when r's user may assign, and answers how many
// findings it gave and, for one finding, its assignment.
func (s *Server) assign(r *http.Request, db *sql.DB, a ledger.Actor, in assignIn) (int, *assignOut, error) {
	if err := s.checkAssign(r, &a, in); err != nil {
		return 0, nil, err
	}
	rc, _, _, err := recon.Shown(r.Context(), db, "", "")
	if err != nil {
		return 0, nil, err
	}
	list, err := s.assigned(r, db, rc, in)
	if err != nil {
		return 0, nil, err
	}
	as := make([]ledger.Assignment, len(list))
	for i, f := range list {
		as[i] = ledger.Assignment{Rule: f.Rule, EntityID: f.EntityID, Assignee: in.Assignee, Due: cmp.Or(in.Due, s.o.Worklist.DueDate(f.Severity, s.o.Now()))}
	}
	if _, err := s.o.Ledger.Assign(a, as); err != nil { // none: nothing written, but a ledger that does not verify still refuses
		return 0, nil, err
	}
	s.o.Log.Info("workspace: assignment", "findings", len(as), "assignee", in.Assignee, "by", a.By, "from", a.From)
	if in.Filter != nil || len(as) == 0 {
		return len(as), nil, nil
	}
	return 1, &assignOut{Assignment: as[0], By: a.By}, nil
}

// checkAssign checks what an assignment asks before any finding is read:
// the role, one finding or a filter, a user to give it to, a due date
// that is a day from today.
func (s *Server) checkAssign(r *http.Request, a *ledger.Actor, in assignIn) error {
	if err := s.mayWrite(r, access.RoleAssign, a); err != nil {
		return err
	}
	one := in.Rule != "" || in.EntityID != ""
	switch {
	case one == (in.Filter != nil):
		return &ledger.InvalidError{Msg: "assignment: give rule and entity_id, or filter, not both"}
	case one && (in.Rule == "" || in.EntityID == ""):
		return &ledger.InvalidError{Msg: "assignment: rule and entity_id required"}
	case strings.TrimSpace(in.Assignee) == "":
		return &ledger.InvalidError{Msg: "assignment: assignee required"}
	case !s.o.Access.Names(in.Assignee):
		return &UnknownError{Msg: fmt.Sprintf("assignment: %q is not a user of this workspace", in.Assignee)}
	}
	if in.Due == "" {
		return nil
	}
	d, err := time.Parse(time.DateOnly, in.Due)
	switch {
	case err != nil:
		return &ledger.InvalidError{Msg: fmt.Sprintf("assignment: due %q: want a date as YYYY-MM-DD", in.Due)}
	case d.Format(time.DateOnly) < s.o.Now().UTC().Format(time.DateOnly):
		return &ledger.InvalidError{Msg: fmt.Sprintf("assignment: due %s is in the past", in.Due)}
	}
	return nil
}

// assigned are the findings of rc an assignment gives: the one it names
// (an unknown rule or record is an *UnknownError), or those its filter
// keeps.
func (s *Server) assigned(r *http.Request, db *sql.DB, rc recon.Recon, in assignIn) ([]findings.Finding, error) {
	if in.Filter == nil {
		if !slices.Contains(s.ruleIDs(), in.Rule) {
			return nil, &UnknownError{Msg: fmt.Sprintf("assignment: no rule %q", in.Rule)}
		}
		list, _, err := recon.List(r.Context(), db, recon.Filter{Rule: in.Rule, Q: in.EntityID, Page: 1}, rc.Snapshot.ID, rc.Period, nil, 0)
		i := slices.IndexFunc(list, func(f findings.Finding) bool { return f.EntityID == in.EntityID })
		if err == nil && i < 0 {
			return nil, &UnknownError{Msg: fmt.Sprintf("assignment: no finding of rule %s names record %q in the latest reconciliation (%s)", in.Rule, in.EntityID, rc.Snapshot.ID)}
		}
		if err != nil {
			return nil, err
		}
		return list[i : i+1], nil
	}
	ff := in.Filter
	f, err := recon.ParseFilter(map[string][]string{"rule": {ff.Rule}, "severity": {ff.Severity}, "status": {ff.Status},
		"currency": {ff.Currency}, "q": {ff.Q}, "assignee": {ff.Assignee}})
	if err != nil {
		return nil, &ledger.InvalidError{Msg: "assignment: filter: " + err.Error()}
	}
	name, err := assigneeOfFilter(r, f.Assignee)
	if err != nil {
		return nil, &ledger.InvalidError{Msg: "assignment: filter: " + err.Error()}
	}
	list, _, _, err := s.listWork(r.Context(), db, f, name, rc, 0)
	return list, err
}

// apiPostAssignment assigns findings: JSON rule and entity_id, or filter;
// assignee; due (YYYY-MM-DD, or the policy's by severity); by. 201 with
// the assignment, or with {"assigned": N} for a filter.
func (s *Server) apiPostAssignment(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	var in assignIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	n, one, err := s.assign(r, db, guard.Actor(r, in.By), in)
	switch {
	case err != nil:
		s.fail(w, r, actionStatus(err), err)
	case one != nil:
		writeJSON(w, http.StatusCreated, one)
	default:
		writeJSON(w, http.StatusCreated, map[string]int{"assigned": n})
	}
}

// apiAssignments lists the assignments that stand, one per finding.
func (s *Server) apiAssignments(w http.ResponseWriter, r *http.Request) {
	st, err := s.assignments()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	out := []assignOut{}
	for _, a := range st {
		out = append(out, assignOut{Assignment: a.Assignment, By: a.By})
	}
	slices.SortFunc(out, func(a, b assignOut) int {
		return strings.Compare(a.Rule+"\x00"+a.EntityID, b.Rule+"\x00"+b.EntityID)
	})
	writeJSON(w, http.StatusOK, out)
}

// postAssignment takes the assign form: one finding (rule, entity_id),
// or with filter=1 the findings list's filter fields.
func (s *Server) postAssignment(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	f := r.PostForm
	in := assignIn{Rule: f.Get("rule"), EntityID: f.Get("entity_id"), Assignee: strings.TrimSpace(f.Get("assignee")), Due: f.Get("due")}
	if f.Get("filter") == "1" {
		in.Rule, in.EntityID = "", ""
		in.Filter = &assignFilter{Rule: f.Get("rule"), Severity: f.Get("severity"), Status: f.Get("status"), Currency: f.Get("currency"),
			Q: f.Get("q"), Assignee: f.Get("filter_assignee")}
	}
	if _, _, err := s.assign(r, db, guard.Actor(r, f.Get("by")), in); err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	rememberName(w, f.Get("by"))
	http.Redirect(w, r, guard.LocalPath(f.Get("back")), http.StatusSeeOther)
}

type assignPage struct {
	Rule, EntityID, Back, By string
	Current                  *ledger.Assigned // the assignment that stands, if any
}

// assignForm is the form that assigns one finding.
func (s *Server) assignForm(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := assignPage{Rule: q.Get("rule"), EntityID: q.Get("entity_id"), Back: guard.LocalPath(q.Get("back")), By: nameCookie(r)}
	st, err := s.assignments()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	if a, ok := st[ledger.AssignKey{Rule: p.Rule, EntityID: p.EntityID}]; ok {
		p.Current = &a
	}
	s.render(w, r, http.StatusOK, "assign", p)
}
