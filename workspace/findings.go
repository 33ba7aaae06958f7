package workspace

import (
	"context"
	"database/sql"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/reconcile"
)

// filter is what the findings list shows: one reconciliation (a snapshot
// and a period), narrowed, sorted and paged.
type filter struct {
	Snapshot, Period                 string // the snapshot as asked (latest, previous, an ID, or "": the shown one), and the period
	Rule, Severity, Status, Currency string // "" : any
	Waived                           string // "", "yes" or "no"
	Q                                string // text in the record's ID or the detail
	Sort                             string // one of sortColumns; "" : the reports' order
	Desc                             bool
	Page                             int // from 1
}

// sortColumns are the columns the list sorts by, and their SQL.
var sortColumns = map[string]string{
	"rule": "rule", "severity": "severity", "entity_id": "entity_id", "amount": "amount", "currency": "currency",
	"status": "status", "first_seen": "first_seen", "detail": "detail",
}

// statuses a finding may be filtered by; "open" is new and recurring.
var filterStatuses = []string{"", "open", reconcile.StatusNew, reconcile.StatusRecurring, reconcile.StatusResolved}

// parseFilter reads a filter from a query string, refusing what it does
// not know (so that a typo is not an empty list).
func parseFilter(q url.Values) (filter, error) {
	f := filter{Snapshot: q.Get("snapshot"), Period: q.Get("period"), Rule: q.Get("rule"), Severity: q.Get("severity"),
		Status: q.Get("status"), Currency: q.Get("currency"), Waived: q.Get("waived"), Q: strings.TrimSpace(q.Get("q")),
		Sort: q.Get("sort"), Desc: q.Get("dir") == "desc", Page: 1}
	if f.Period != "" {
		if _, err := reconcile.ParsePeriod(f.Period); err != nil {
			return f, err
		}
	}
	if !slices.Contains(filterStatuses, f.Status) {
		return f, fmt.Errorf("status %q: want open, new, recurring or resolved", f.Status)
	}
	if f.Waived != "" && f.Waived != "yes" && f.Waived != "no" {
		return f, fmt.Errorf("waived %q: want yes or no", f.Waived)
	}
	if _, ok := sortColumns[f.Sort]; f.Sort != "" && !ok {
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

// query is f as URL query parameters, with changes applied.
func (f filter) query(changes ...string) template.URL {
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

// where is f's condition on the findings of reconciliation (id, period).
func (f filter) where(id, period string) (string, []any) {
	conds := []string{"snapshot_id = ?", "period = ?"}
	args := []any{id, period}
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if f.Rule != "" {
		add("rule = ?", f.Rule)
	}
	if f.Severity != "" {
		add("severity = ?", f.Severity)
	}
	switch f.Status {
	case "":
	case "open":
		add("status <> 'resolved'")
	default:
		add("status = ?", f.Status)
	}
	if f.Currency != "" {
		add("coalesce(currency, '') = ?", f.Currency)
	}
	if f.Waived != "" {
		add("waived = ?", f.Waived == "yes")
	}
	if f.Q != "" {
		add("(contains(lower(entity_id), lower(?)) OR contains(lower(coalesce(detail, '')), lower(?)))", f.Q, f.Q)
	}
	return strings.Join(conds, " AND "), args
}

// orderBy is f's order: a chosen column, then the reports' order (rule
// order, resolved last, record ID) to break ties.
func (f filter) orderBy(rules []string) (string, []any) {
	base := "status = 'resolved', list_position(?, rule), entity_id"
	if f.Sort == "" {
		return base, []any{rules}
	}
	dir := "ASC"
	if f.Desc {
		dir = "DESC"
	}
	return sortColumns[f.Sort] + " " + dir + ", " + base, []any{rules}
}

// findingColumns are what a finding is read with, in the order scanFinding
// scans them.
const findingColumns = `rule, severity, entity, entity_id, CAST(amount AS VARCHAR), coalesce(currency, ''), coalesce(detail, ''),
	status, first_seen, waived, coalesce(waiver_reason, ''), coalesce(waiver_owner, ''), waiver_expires,
	coalesce(waiver_id, ''), coalesce(waiver_by, ''), coalesce(k.live, ''), k.checked_at`

func scanFinding(rows *sql.Rows) (reconcile.Finding, error) {
	var f reconcile.Finding
	var amount string
	var waived bool
	var w reconcile.Waiver
	var expires, checked sql.NullTime
	err := rows.Scan(&f.Rule, &f.Severity, &f.Entity, &f.EntityID, &amount, &f.Currency, &f.Detail, &f.Status, &f.FirstSeen,
		&waived, &w.Reason, &w.Owner, &expires, &w.ID, &w.By, &f.Live, &checked)
	if err != nil {
		return f, err
	}
	if f.Amount, err = money.Parse(amount); err != nil {
		return f, err
	}
	if waived {
		w.Rule, w.EntityID, w.Expires = f.Rule, f.EntityID, reconcile.Date{Time: expires.Time}
		f.Waiver = &w
	}
	if checked.Valid {
		f.CheckedAt = checked.Time.UTC()
	}
	return f, nil
}

// listFindings reads the findings of reconciliation (id, period) that f
// keeps, in f's order: one page of size n, or all of them when n is 0;
// and how many f keeps in all.
func listFindings(ctx context.Context, db *sql.DB, f filter, id, period string, rules []string, n int) ([]reconcile.Finding, int, error) {
	where, args := f.where(id, period)
	var total int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM findings WHERE "+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order, oargs := f.orderBy(rules)
	q := "SELECT " + findingColumns + " FROM findings LEFT JOIN (" + reconcile.LiveSQL + ") k USING (rule, entity_id) WHERE " + where + " ORDER BY " + order
	args = append(append([]any{id}, args...), oargs...)
	if n > 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, n, (f.Page-1)*n)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []reconcile.Finding
	for rows.Next() {
		fd, err := scanFinding(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, fd)
	}
	return out, total, rows.Err()
}

// facets are the values the filter's lists offer for a reconciliation.
type facets struct {
	Currencies, Snapshots []string
}

func readFacets(ctx context.Context, db *sql.DB, id, period string) (facets, error) {
	var fc facets
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT coalesce(currency, '') FROM findings WHERE snapshot_id = ? AND period = ? ORDER BY 1", id, period)
	if err != nil {
		return fc, err
	}
	defer rows.Close()
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return fc, err
		}
		fc.Currencies = append(fc.Currencies, c)
	}
	return fc, rows.Err()
}

// reconciledSnapshots are the snapshots that have a stored
// reconciliation, newest first (the last 100).
func reconciledSnapshots(ctx context.Context, db *sql.DB) ([]string, error) {
	return queryStrings(ctx, db, `SELECT r.snapshot_id FROM reconciliations r JOIN snapshots s ON s.id = r.snapshot_id
		GROUP BY r.snapshot_id, s.started ORDER BY s.started DESC, r.snapshot_id DESC LIMIT 100`)
}
