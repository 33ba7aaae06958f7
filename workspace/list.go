package workspace

import (
	"database/sql"
	"fmt"
	"html/template"
	"net/http"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/worklist"
	"github.com/billsnap/billsnap/workspace/recon"
)

type findingsPage struct {
	F          recon.Filter
	Recon      recon.Recon
	Others     []recon.Recon
	Findings   []findingRow
	Total      int
	First      int // the first finding's place on this page, from 1
	Pages      int
	Prev, Next template.URL // "" : none
	Rules      []findings.Rule
	Severities []string
	Statuses   []string
	Currencies []string
	Snapshots  []string // the reconciled snapshots, newest first
	Sorts      []sortLink
	CSV, XLSX  template.URL
	Back       string // this page, for the forms to come back to
	Note       string // why the reconciliation shown is not the latest snapshot's
	Pending    int    // findings shown waived by a waiver made since their reconciliation
	Queue      string // whose queue this is (the filter's assignee, "me" resolved)
}

type findingRow struct {
	findings.Finding
	Title   string
	Pending bool // waived since the reconciliation: its totals count it until the next
	Work    worklist.Work
}

// sortLink is a column heading that sorts by it, or turns the order.
type sortLink struct {
	Column, Label string
	URL           template.URL
	Arrow         string
}

// findings is the findings list: filtered, sorted and paged on the server.
func (s *Server) findings(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	f, name, err := s.parseWorkFilter(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	rc, all, note, err := recon.Shown(r.Context(), db, f.Snapshot, f.Period)
	if err != nil {
		s.failStore(w, r, err)
		return
	}
	if r.URL.RawQuery == "" && s.hasQueue(r, db, rc) {
		http.Redirect(w, r, "/findings?assignee=me", http.StatusSeeOther)
		return
	}
	list, total, wk, err := s.listWork(r.Context(), db, f, name, rc, s.o.PageSize)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	fc, err := recon.ReadFacets(r.Context(), db, rc.Snapshot.ID, rc.Period)
	if err == nil {
		fc.Snapshots, err = recon.ReconciledSnapshots(r.Context(), db)
	}
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p := findingsPage{F: f, Recon: rc, Note: note, Others: all, Total: total, First: (f.Page-1)*s.o.PageSize + 1,
		Pages: (total + s.o.PageSize - 1) / s.o.PageSize, Rules: s.o.Reconcile.Rules, Severities: findings.Severities(),
		Statuses: recon.Statuses[1:], Currencies: fc.Currencies, Snapshots: fc.Snapshots, CSV: "/findings.csv?" + f.Query("page", ""),
		XLSX: "/findings.xlsx?" + f.Query("page", ""), Back: "/findings?" + string(f.Query()), Queue: name}
	st, err := s.standing()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, fd := range list {
		row := findingRow{Finding: fd, Title: s.rule(fd.Rule).Title, Work: wk.Of(fd)}
		if wv, ok := recon.PendingOf(fd, st); ok {
			row.Waiver, row.Pending = wv, true
			p.Pending++
		}
		p.Findings = append(p.Findings, row)
	}
	if f.Page > 1 {
		p.Prev = "/findings?" + f.Query("page", fmt.Sprint(f.Page-1))
	}
	if f.Page < p.Pages {
		p.Next = "/findings?" + f.Query("page", fmt.Sprint(f.Page+1))
	}
	p.Sorts = sortLinks(f)
	s.render(w, r, http.StatusOK, "findings", p)
}

// sortLinks are the list's headings: a click sorts by the column, a
// second one turns the order.
func sortLinks(f recon.Filter) []sortLink {
	cols := [][2]string{{"rule", "Rule"}, {"severity", "Severity"}, {"status", "Status"}, {"entity_id", "Record"},
		{"amount", "Amount"}, {"currency", "Currency"}, {"detail", "Detail"}, {"first_seen", "First seen"}}
	out := make([]sortLink, len(cols))
	for i, c := range cols {
		dir, arrow := "", ""
		if f.Sort == c[0] {
			arrow = "▲"
			if !f.Desc {
				dir = "desc"
			} else {
				arrow = "▼"
			}
		}
		out[i] = sortLink{Column: c[0], Label: c[1], Arrow: arrow, URL: "/findings?" + f.Query("sort", c[0], "dir", dir, "page", "")}
	}
	return out
}

// download writes the findings the filter keeps, every page, as CSV or
// XLSX: the reports' own writers, so the columns are the reports'.
func (s *Server) download(format string) func(http.ResponseWriter, *http.Request, *sql.DB) {
	return func(w http.ResponseWriter, r *http.Request, db *sql.DB) {
		f, name, err := s.parseWorkFilter(r)
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, err)
			return
		}
		rep, wk, err := s.filtered(r, db, f, name)
		if err != nil {
			s.failStore(w, r, err)
			return
		}
		file := fmt.Sprintf("billsnap-findings-%s.%s", rep.Snapshot.ID, format)
		w.Header().Set("Content-Disposition", `attachment; filename="`+file+`"`)
		switch format {
		case "csv":
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			err = reports.CSV(w, rep, wk.ForReports())
		default:
			w.Header().Set("Content-Type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
			err = reports.XLSX(w, &reports.Input{Report: rep, Generated: s.o.Now(), Work: wk.ForReports()})
		}
		if err != nil {
			s.o.Log.Error("workspace: a download stopped short", "format", format, "error", err)
		}
	}
}

// filtered is a report of the findings f keeps (those of assignee name,
// when not ""), in f's order, and their work.
func (s *Server) filtered(r *http.Request, db *sql.DB, f recon.Filter, name string) (*findings.Report, work, error) {
	rc, _, _, err := recon.Shown(r.Context(), db, f.Snapshot, f.Period)
	if err != nil {
		return nil, work{}, err
	}
	list, _, wk, err := s.listWork(r.Context(), db, f, name, rc, 0)
	if err != nil {
		return nil, wk, err
	}
	wk.Coded(list)
	period, _ := findings.ParsePeriod(rc.Period)
	if rc.Period == "" {
		period = nil
	}
	return &findings.Report{Snapshot: rc.Snapshot, Previous: rc.Previous, AsOf: rc.AsOf, Period: period,
		Rules: s.o.Reconcile.Rules, Findings: list}, wk, nil
}
