package workspace

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/worklist"
	"github.com/billsnap/billsnap/workspace/guard"
	"github.com/billsnap/billsnap/workspace/recon"
)

// work is what the work of a reconciliation's findings is read from.
type work = worklist.Reading

// assignments are the assignments standing in the ledger.
func (s *Server) assignments() (map[ledger.AssignKey]ledger.Assigned, error) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		return nil, err
	}
	return ledger.Assignments(entries), nil
}

// workOf reads the work of reconciliation rc's findings (recon.WorkOf).
func (s *Server) workOf(ctx context.Context, db *sql.DB, rc recon.Recon) (work, error) {
	return recon.WorkOf(ctx, db, s.o.Ledger, rc)
}

// me is who "me" is in r: the identity, else the name this browser last
// acted under; "" when neither is known.
func me(r *http.Request) string {
	if u := guard.User(r); u.Name != "" {
		return u.Name
	}
	return nameCookie(r)
}

// assigneeOfFilter is the assignee a filter asks for, "me" resolved; an
// error when it is "me" and who that is is not known.
func assigneeOfFilter(r *http.Request, asked string) (string, error) {
	if asked != "me" {
		return asked, nil
	}
	if m := me(r); m != "" {
		return m, nil
	}
	return "", fmt.Errorf("assignee me: who you are is not known here: sign in, or act once under your name")
}

// assignedKeys are the keys (readmodel.WaiverKey) of the findings
// assigned to name, never nil.
func assignedKeys(w work, name string) []string {
	keys := []string{}
	for k, a := range w.Assigned {
		if a.Assignee == name {
			keys = append(keys, readmodel.WaiverKey(k.Rule, k.EntityID))
		}
	}
	return keys
}

// agingBucket is one bucket of /api/aging.
type agingBucket struct {
	Bucket string                  `json:"bucket"`
	Count  int                     `json:"count"`
	Totals map[string]ledger.Total `json:"totals"`
}

// aging buckets the open findings of list that are not waived (by the
// reconciliation or by a waiver standing since, st) by their age,
// summing their amounts per currency, net and gross (absolute).
func aging(list []findings.Finding, w work, st map[string]ledger.Made) []agingBucket {
	type sums struct{ net, gross money.Amount }
	counts := map[string]int{}
	totals := map[string]map[string]sums{}
	for _, f := range list {
		if _, pending := recon.PendingOf(f, st); f.Status == findings.StatusResolved || f.Waiver != nil || pending {
			continue
		}
		b := worklist.Bucket(w.Of(f).AgeDays)
		counts[b]++
		if f.Currency == "" {
			continue
		}
		if totals[b] == nil {
			totals[b] = map[string]sums{}
		}
		t := totals[b][f.Currency]
		t.net, t.gross = t.net+f.Amount, t.gross+f.Amount.Abs()
		totals[b][f.Currency] = t
	}
	out := make([]agingBucket, len(worklist.Buckets))
	for i, b := range worklist.Buckets {
		out[i] = agingBucket{Bucket: b, Count: counts[b], Totals: map[string]ledger.Total{}}
		for c, t := range totals[b] {
			out[i].Totals[c] = ledger.Total{Net: t.net.String(), Gross: t.gross.String()}
		}
	}
	return out
}

// apiAging answers the aging of a reconciliation's open, unwaived
// findings (snapshot and period as /api/findings takes them).
func (s *Server) apiAging(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	q := r.URL.Query()
	rc, _, _, err := recon.Shown(r.Context(), db, q.Get("snapshot"), q.Get("period"))
	if err != nil {
		s.failStore(w, r, err)
		return
	}
	list, _, err := recon.List(r.Context(), db, recon.Filter{Status: "open", Page: 1}, rc.Snapshot.ID, rc.Period, nil, 0)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	wk, err := s.workOf(r.Context(), db, rc)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	st, err := s.standing()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"snapshot_id": rc.Snapshot.ID, "period": rc.Period, "as_of": rc.AsOf, "buckets": aging(list, wk, st)})
}

// listWork is recon.List with the filter's assignee (name, "me"
// resolved) applied: the findings of rc that f keeps, one page of n (0:
// all), how many f keeps in all, and their work.
func (s *Server) listWork(ctx context.Context, db *sql.DB, f recon.Filter, name string, rc recon.Recon, n int) ([]findings.Finding, int, work, error) {
	wk, err := s.workOf(ctx, db, rc)
	if err != nil {
		return nil, 0, wk, err
	}
	if name != "" {
		f.Keys = assignedKeys(wk, name)
	}
	list, total, err := recon.List(ctx, db, f, rc.Snapshot.ID, rc.Period, s.ruleIDs(), n)
	return list, total, wk, err
}

// parseWorkFilter is r's filter and the assignee it asks for, "me"
// resolved.
func (s *Server) parseWorkFilter(r *http.Request) (recon.Filter, string, error) {
	f, err := recon.ParseFilter(r.URL.Query())
	if err != nil {
		return f, "", err
	}
	name, err := assigneeOfFilter(r, f.Assignee)
	return f, name, err
}

// hasQueue tells whether r's user has open findings of rc assigned to
// them: their queue is then their default findings page.
func (s *Server) hasQueue(r *http.Request, db *sql.DB, rc recon.Recon) bool {
	name := me(r)
	if name == "" {
		return false
	}
	list, total, _, err := s.listWork(r.Context(), db, recon.Filter{Status: "open", Page: 1}, name, rc, 1)
	return err == nil && total > 0 && len(list) > 0
}

// writeFindings writes v as the findings' JSON, as reports write it (no
// HTML escaping).
func writeFindings(w http.ResponseWriter, log *slog.Logger, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		log.Error("workspace: writing findings", "error", err)
	}
}
