package workspace

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/worklist"
	"github.com/billsnap/billsnap/workspace/guard"
	"github.com/billsnap/billsnap/workspace/record"
)

// commentRoles are the roles any of which lets a user comment: whoever
// works the findings (waives, assigns, signs off or closes) may discuss
// them.
var commentRoles = []string{access.RoleWaive, access.RoleAssign, access.RoleSignOff, access.RoleClose}

// mayComment checks that r's user holds one of commentRoles and that a
// write by a may be taken (mayWrite, in the first role held, so that only
// a refusal is logged); without any, the refusal of the first.
func (s *Server) mayComment(r *http.Request, a *ledger.Actor) error {
	role := commentRoles[0]
	if s.o.Access != nil {
		u := guard.User(r)
		if i := slices.IndexFunc(commentRoles, func(x string) bool { return s.o.Access.May(u, x) == nil }); i >= 0 {
			role = commentRoles[i]
		}
	}
	return s.mayWrite(r, role, a)
}

// comment records text in the thread of the finding of rule about
// entityID, by a, when r's user may comment and a stored finding of a
// known rule names the record (else an *UnknownError, 422).
func (s *Server) comment(r *http.Request, a ledger.Actor, rule, entityID, text string) (ledger.Commented, error) {
	if err := s.mayComment(r, &a); err != nil {
		return ledger.Commented{}, err
	}
	c := ledger.Comment{Rule: rule, EntityID: entityID, Text: text}
	if err := c.Check(); err != nil {
		return ledger.Commented{}, err
	}
	if !slices.Contains(s.ruleIDs(), rule) {
		return ledger.Commented{}, &UnknownError{Msg: fmt.Sprintf("comment: no rule %q", rule)}
	}
	if err := s.checkNamed(r.Context(), rule, entityID); err != nil {
		if unnamed := (*UnnamedError)(nil); errors.As(err, &unnamed) {
			err = &UnknownError{Msg: fmt.Sprintf("comment: no finding of rule %s names record %q", rule, entityID)}
		}
		return ledger.Commented{}, err
	}
	out, err := s.o.Ledger.AddComment(a, c)
	if err == nil {
		s.o.Log.Info("workspace: comment", "id", out.ID, "rule", rule, "entity_id", entityID, "by", a.By, "from", a.From)
	}
	return out, err
}

// apiComment is a comment as the API shows it.
type apiComment struct {
	ledger.Comment
	By string    `json:"by"`
	At time.Time `json:"at"`
}

func commentOut(c ledger.Commented) apiComment {
	return apiComment{Comment: c.Comment, By: c.By, At: c.At}
}

// apiPostComment adds a comment to a finding's thread: JSON rule,
// entity_id, text, and by (who, without identity). 201 with the comment.
func (s *Server) apiPostComment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Rule     string `json:"rule"`
		EntityID string `json:"entity_id"`
		Text     string `json:"text"`
		By       string `json:"by"`
	}
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	c, err := s.comment(r, guard.Actor(r, in.By), in.Rule, in.EntityID, in.Text)
	if err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, commentOut(c))
}

// apiComments lists the comments, oldest first: a finding's thread with
// ?rule= and ?entity_id=, else every thread.
func (s *Server) apiComments(w http.ResponseWriter, r *http.Request) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	q := r.URL.Query()
	out := []apiComment{}
	for _, e := range entries {
		if c := e.Comment; c != nil && e.Action == ledger.ActComment && (q.Get("rule") == "" || q.Get("rule") == c.Rule) &&
			(q.Get("entity_id") == "" || q.Get("entity_id") == c.EntityID) {
			out = append(out, apiComment{Comment: *c, By: e.By, At: e.At})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// postComment takes the comment form of a record's page.
func (s *Server) postComment(w http.ResponseWriter, r *http.Request) {
	if err := s.g.CheckForm(r); err != nil {
		s.fail(w, r, http.StatusForbidden, err)
		return
	}
	f := r.PostForm
	if _, err := s.comment(r, guard.Actor(r, f.Get("by")), f.Get("rule"), f.Get("entity_id"), f.Get("text")); err != nil {
		s.fail(w, r, actionStatus(err), err)
		return
	}
	rememberName(w, f.Get("by"))
	http.Redirect(w, r, guard.LocalPath(f.Get("back"))+"#comments", http.StatusSeeOther)
}

// entityPage is a record's page: the record, and the threads of its
// findings.
type entityPage struct {
	*record.View
	Threads  []thread
	Back, By string
	Reasons  []worklist.Reason // the catalogue, for the resolution form
}

// thread is a finding's comments as its record's page shows them, and
// the resolution that stands for it, if any.
type thread struct {
	Rule       string
	Comments   []ledger.Commented
	Resolution *ledger.Resolved
}

// threadsOf are the threads of the findings of rules about entityID, in
// the order of rules (each rule once), with the comments standing in the
// ledger.
func (s *Server) threadsOf(entityID string, rules []string) ([]thread, error) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		return nil, err
	}
	all, resolved := ledger.Comments(entries), ledger.Resolutions(entries)
	var out []thread
	for _, rule := range rules {
		if !slices.ContainsFunc(out, func(t thread) bool { return t.Rule == rule }) {
			k := ledger.AssignKey{Rule: rule, EntityID: entityID}
			t := thread{Rule: rule, Comments: all[k]}
			if x, ok := resolved[k]; ok {
				t.Resolution = &x
			}
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b thread) int { return strings.Compare(a.Rule, b.Rule) })
	return out, nil
}
