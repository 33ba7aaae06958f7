package recon

import (
	"context"
	"database/sql"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Filter is what the findings list shows: one reconciliation (a snapshot
// and a period), narrowed, sorted and paged.
type Filter struct {
	Snapshot, Period                 string // the snapshot as asked (latest, previous, an ID, or "": the shown one), and the period
	Rule, Severity, Status, Currency string // "" : any
	Waived                           string // "", "yes" or "no"
	Q                                string // text in the record's ID or the detail
	Assignee                         string // whose findings: a user, "me", or "": anyone's (the workspace resolves "me")
	Sort                             string // one of readmodel.SortKeys; "" : the reports' order
	Desc                             bool
	Page                             int // from 1
	// Keys, when not nil, keeps only the findings these name
	// (readmodel.Filter.Keys): the assignee's, resolved.
	Keys []string
}

// Statuses a finding may be filtered by; "open" is new and recurring.
var Statuses = []string{"", "open", findings.StatusNew, findings.StatusRecurring, findings.StatusResolved}

// ParseFilter reads a filter from a query string, refusing what it does
// not know (so that a typo is not an empty list).
func ParseFilter(q url.Values) (Filter, error) {
	f := Filter{Snapshot: q.Get("snapshot"), Period: q.Get("period"), Rule: q.Get("rule"), Severity: q.Get("severity"),
		Status: q.Get("status"), Currency: q.Get("currency"), Waived: q.Get("waived"), Q: strings.TrimSpace(q.Get("q")),
		Sort: q.Get("sort"), Desc: q.Get("dir") == "desc", Page: 1, Assignee: strings.TrimSpace(q.Get("assignee"))}
	if f.Period != "" {
		if _, err := findings.ParsePeriod(f.Period); err != nil {
			return f, err
		}
	}
	if !slices.Contains(Statuses, f.Status) {
		return f, fmt.Errorf("status %q: want open, new, recurring or resolved", f.Status)
	}
	if f.Waived != "" && f.Waived != "yes" && f.Waived != "no" {
		return f, fmt.Errorf("waived %q: want yes or no", f.Waived)
	}
	if f.Sort != "" && !slices.Contains(readmodel.SortKeys(), readmodel.SortKey(f.Sort)) {
		return f, fmt.Errorf("sort %q: want one of rule, severity, entity_id, amount, currency, status, first_seen, detail", f.Sort)
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return f, fmt.Errorf("page %q: want a number from 1", p)
		}
		f.Page = n
	}
	return f, nil
}

// Query is f as URL query parameters, with changes applied.
func (f Filter) Query(changes ...string) template.URL {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("snapshot", f.Snapshot)
	set("period", f.Period)
	set("rule", f.Rule)
	set("severity", f.Severity)
	set("status", f.Status)
	set("currency", f.Currency)
	set("waived", f.Waived)
	set("q", f.Q)
	set("assignee", f.Assignee)
	set("sort", f.Sort)
	if f.Desc {
		v.Set("dir", "desc")
	}
	if f.Page > 1 {
		v.Set("page", strconv.Itoa(f.Page))
	}
	for i := 0; i+1 < len(changes); i += 2 {
		v.Del(changes[i])
		set(changes[i], changes[i+1])
	}
	return template.URL(v.Encode())
}

// model is f as the read model's filter and order, the rules in the
// order of rules.
func (f Filter) model(rules []string) (readmodel.Filter, readmodel.Order) {
	mf := readmodel.Filter{Rule: f.Rule, Severity: f.Severity, Status: f.Status, Currency: f.Currency, Q: f.Q, Keys: f.Keys}
	if f.Waived != "" {
		waived := f.Waived == "yes"
		mf.Waived = &waived
	}
	return mf, readmodel.Order{Sort: readmodel.SortKey(f.Sort), Desc: f.Desc, Rules: rules}
}

// List reads the findings of reconciliation (id, period) that f
// keeps, in f's order: one page of size n, or all of them when n is 0;
// and how many f keeps in all.
func List(ctx context.Context, db *sql.DB, f Filter, id, period string, rules []string, n int) ([]findings.Finding, int, error) {
	mf, order := f.model(rules)
	total, err := readmodel.CountFindings(ctx, db, id, period, mf)
	if err != nil {
		return nil, 0, err
	}
	rows, err := readmodel.Findings(ctx, db, readmodel.Relations{}, id, period, mf, order, readmodel.Page{Limit: n, Offset: (f.Page - 1) * n})
	if err != nil {
		return nil, 0, err
	}
	var out []findings.Finding
	for _, r := range rows {
		out = append(out, reconcile.FindingOf(r))
	}
	return out, total, nil
}

// Facets are the values the filter's lists offer for a reconciliation.
type Facets struct {
	Currencies, Snapshots []string
}

// ReadFacets reads the facets of reconciliation (id, period).
func ReadFacets(ctx context.Context, db *sql.DB, id, period string) (Facets, error) {
	var fc Facets
	var err error
	fc.Currencies, err = readmodel.Currencies(ctx, db, id, period)
	return fc, err
}

// ReconciledSnapshots are the snapshots that have a stored
// reconciliation, newest first (the last 100).
func ReconciledSnapshots(ctx context.Context, db *sql.DB) ([]string, error) {
	return readmodel.ReconciledSnapshots(ctx, db, 100)
}
