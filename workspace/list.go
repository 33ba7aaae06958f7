package workspace

import (
	"database/sql"
	"fmt"
	"html/template"
	"net/http"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/reports"
)

type findingsPage struct {
	F          filter
	Recon      recon
	Others     []recon
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
}

type findingRow struct {
	findings.Finding
	Title   string
	Pending bool // waived since the reconciliation: its totals count it until the next
}

// sortLink is a column heading that sorts by it, or turns the order.
type sortLink struct {
	Column, Label string
	URL           template.URL
	Arrow         string
}

// findings is the findings list: filtered, sorted and paged on the server.
func (s *Server) findings(w http.ResponseWriter, r *http.Request, db *sql.DB) {
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	rc, all, note, err := shownRecon(r.Context(), db, f.Snapshot, f.Period)
	if err != nil {
		s.failStore(w, r, err)
		return
	}
	list, total, err := listFindings(r.Context(), db, f, rc.Snapshot.ID, rc.Period, s.ruleIDs(), s.o.PageSize)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	fc, err := readFacets(r.Context(), db, rc.Snapshot.ID, rc.Period)
	if err == nil {
		fc.Snapshots, err = reconciledSnapshots(r.Context(), db)
	}
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p := findingsPage{F: f, Recon: rc, Note: note, Others: all, Total: total, First: (f.Page-1)*s.o.PageSize + 1,
		Pages: (total + s.o.PageSize - 1) / s.o.PageSize, Rules: s.o.Reconcile.Rules, Severities: findings.Severities(),
		Statuses: filterStatuses[1:], Currencies: fc.Currencies, Snapshots: fc.Snapshots, CSV: "/findings.csv?" + f.query("page", ""),
		XLSX: "/findings.xlsx?" + f.query("page", ""), Back: "/findings?" + string(f.query())}
	st, err := s.standing()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, fd := range list {
		row := findingRow{Finding: fd, Title: s.rule(fd.Rule).Title}
		if wv, ok := pendingOf(fd, st); ok {
			row.Waiver, row.Pending = wv, true
			p.Pending++
		}
		p.Findings = append(p.Findings, row)
	}
	if f.Page > 1 {
		p.Prev = "/findings?" + f.query("page", fmt.Sprint(f.Page-1))
	}
	if f.Page < p.Pages {
		p.Next = "/findings?" + f.query("page", fmt.Sprint(f.Page+1))
	}
	p.Sorts = sortLinks(f)
	s.render(w, r, http.StatusOK, "findings", p)
}

// sortLinks are the list's headings: a click sorts by the column, a
// second one turns the order.
func sortLinks(f filter) []sortLink {
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
		out[i] = sortLink{Column: c[0], Label: c[1], Arrow: arrow, URL: "/findings?" + f.query("sort", c[0], "dir", dir, "page", "")}
	}
	return out
}

// download writes the findings the filter keeps, every page, as CSV or
// XLSX: the reports' own writers, so the columns are the reports'.
func (s *Server) download(format string) func(http.ResponseWriter, *http.Request, *sql.DB) {
	return func(w http.ResponseWriter, r *http.Request, db *sql.DB) {
		f, err := parseFilter(r.URL.Query())
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, err)
			return
		}
		rep, err := s.filtered(r, db, f)
		if err != nil {
			s.failStore(w, r, err)
			return
		}
		name := fmt.Sprintf("billsnap-findings-%s.%s", rep.Snapshot.ID, format)
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		switch format {
		case "csv":
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			err = reports.CSV(w, rep)
		default:
			w.Header().Set("Content-Type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
			err = reports.XLSX(w, &reports.Input{Report: rep, Generated: s.o.Now()})
		}
		if err != nil {
			s.o.Log.Error("workspace: a download stopped short", "format", format, "error", err)
		}
	}
}

// filtered is a report of the findings f keeps, in f's order.
func (s *Server) filtered(r *http.Request, db *sql.DB, f filter) (*findings.Report, error) {
	rc, _, _, err := shownRecon(r.Context(), db, f.Snapshot, f.Period)
	if err != nil {
		return nil, err
	}
	list, _, err := listFindings(r.Context(), db, f, rc.Snapshot.ID, rc.Period, s.ruleIDs(), 0)
	if err != nil {
		return nil, err
	}
	period, _ := findings.ParsePeriod(rc.Period)
	if rc.Period == "" {
		period = nil
	}
	return &findings.Report{Snapshot: rc.Snapshot, Previous: rc.Previous, AsOf: rc.AsOf, Period: period,
		Rules: s.o.Reconcile.Rules, Findings: list}, nil
}
