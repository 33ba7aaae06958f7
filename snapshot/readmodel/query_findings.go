package readmodel

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// Finding is one stored finding with its latest recheck.
type Finding struct {
	Rule, Severity, Entity, EntityID string
	Amount                           money.Amount
	Currency, Detail                 string // "" for NULL
	Status                           string
	FirstSeen                        string // the snapshot it was first seen in
	Waived                           bool
	WaiverReason, WaiverOwner        string    // "" for NULL
	WaiverExpires                    time.Time // zero for NULL
	WaiverID, WaiverBy               string    // "" for NULL
	Live                             string    // the latest recheck's class; "" when never rechecked
	CheckedAt                        time.Time // the latest recheck, in UTC; zero when never rechecked
	// The customer of the record it names and its invoice's number; ""
	// for NULL (none, not found, or a finding kept before they were).
	CustomerID, CustomerName, InvoiceNumber string
}

// Relations are the relations findings are read from: the zero value is
// the stored run records (the reconciliation's files of findings, the
// snapshot's of rechecks); a reconciliation reads the ones it staged.
type Relations struct{ Findings, Rechecks string }

// Filter narrows the findings of a reconciliation; its zero value keeps
// them all.
type Filter struct {
	Rule, Severity string // "": any
	Status         string // "": any; "open": not resolved; else that status
	Currency       string // "": any; else that currency, "" for none matched by no filter
	Waived         *bool  // nil: any
	Q              string // text in the record's ID, the detail, its customer or invoice number, case folded; "": any
	// Keys, when not nil, keeps only the findings one of them names
	// (WaiverKey: a rule and a record's ID), none when it is empty.
	Keys []string
}

// SortKey is a column findings are sorted by, of a closed set.
type SortKey string

// The keys findings sort by; SortNone is the reports' order alone.
const (
	SortNone      SortKey = ""
	SortRule      SortKey = "rule"
	SortSeverity  SortKey = "severity"
	SortEntityID  SortKey = "entity_id"
	SortAmount    SortKey = "amount"
	SortCurrency  SortKey = "currency"
	SortStatus    SortKey = "status"
	SortFirstSeen SortKey = "first_seen"
	SortDetail    SortKey = "detail"
)

// SortKeys are the keys findings sort by, SortNone aside, in the order a
// list offers them.
func SortKeys() []SortKey {
	return []SortKey{SortRule, SortSeverity, SortEntityID, SortAmount, SortCurrency, SortStatus, SortFirstSeen, SortDetail}
}

// Order is how findings are sorted: by Sort (descending when Desc), then
// the reports' order: unresolved first, the rules in the order of Rules,
// the record's ID.
type Order struct {
	Sort  SortKey
	Desc  bool
	Rules []string
}

// Page is a part of a list: Limit rows from Offset; Limit 0 is all.
type Page struct{ Limit, Offset int }

// where is f's condition on the findings of reconciliation (id, period).
func (f Filter) where(id, period string) (string, []any) {
	conds := []string{"snapshot_id = ?", periodIs}
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
	if f.Waived != nil {
		add("waived = ?", *f.Waived)
	}
	if f.Q != "" {
		add(`(contains(lower(entity_id), lower(?)) OR contains(lower(coalesce(detail, '')), lower(?))
			OR contains(lower(coalesce(customer_name, '') || ' ' || coalesce(customer_id, '') || ' ' || coalesce(invoice_number, '')), lower(?)))`, f.Q, f.Q, f.Q)
	}
	switch {
	case f.Keys == nil:
	case len(f.Keys) == 0:
		add("false")
	default:
		add("list_contains(?, rule || chr(31) || entity_id)", f.Keys)
	}
	return strings.Join(conds, " AND "), args
}

// orderBy is o as SQL; it refuses a key outside the closed set.
func (o Order) orderBy() (string, []any, error) {
	base := "status = 'resolved', list_position(?, rule), entity_id"
	args := []any{o.Rules}
	if o.Sort == SortNone {
		return base, args, nil
	}
	known := false
	for _, k := range SortKeys() {
		known = known || k == o.Sort
	}
	if !known {
		return "", nil, fmt.Errorf("sorting findings by %q: no such key", o.Sort)
	}
	dir := "ASC"
	if o.Desc {
		dir = "DESC"
	}
	return string(o.Sort) + " " + dir + ", " + base, args, nil
}

// liveSQL is the latest recheck of each finding of snapshot ? (rule,
// entity_id, live, checked_at) in the relation of rechecks, to join the
// findings with; its placeholders are rechecks', then the snapshot.
func liveSQL(rechecks string) string {
	return `SELECT rule, entity_id, arg_max(live, checked_at) AS live, max(checked_at) AS checked_at
	FROM ` + rechecks + ` WHERE snapshot_id = ? GROUP BY rule, entity_id`
}

// findingColumns are what a finding is read with, in the order
// scanFinding scans them.
const findingColumns = `rule, severity, entity, entity_id, CAST(amount AS VARCHAR), coalesce(currency, ''), coalesce(detail, ''),
	status, first_seen, waived, coalesce(waiver_reason, ''), coalesce(waiver_owner, ''), waiver_expires,
	coalesce(waiver_id, ''), coalesce(waiver_by, ''), coalesce(k.live, ''), k.checked_at,
	coalesce(customer_id, ''), coalesce(customer_name, ''), coalesce(invoice_number, '')`

func scanFinding(rows *sql.Rows) (Finding, error) {
	var f Finding
	var amount string
	var expires, checked sql.NullTime
	err := rows.Scan(&f.Rule, &f.Severity, &f.Entity, &f.EntityID, &amount, &f.Currency, &f.Detail, &f.Status, &f.FirstSeen,
		&f.Waived, &f.WaiverReason, &f.WaiverOwner, &expires, &f.WaiverID, &f.WaiverBy, &f.Live, &checked,
		&f.CustomerID, &f.CustomerName, &f.InvoiceNumber)
	if err != nil {
		return f, err
	}
	if f.Amount, err = money.Parse(amount); err != nil {
		return f, err
	}
	f.WaiverExpires = expires.Time
	if checked.Valid {
		f.CheckedAt = checked.Time.UTC()
	}
	return f, nil
}

// Findings are the findings of reconciliation (id, period) in rel that f
// keeps, each with its latest recheck, in o's order, page p of them.
func Findings(ctx context.Context, q Querier, rel Relations, id, period string, f Filter, o Order, p Page) ([]Finding, error) {
	if rel.Findings != "" {
		rechecks := cmp.Or(rel.Rechecks, runrec.Rechecks.Name)
		return findingsIn(ctx, q, runSource{rel: rel.Findings}, runSource{rel: rechecks}, id, period, f, o, p)
	}
	return ofRun(ctx, q, id, period, func(s runSources) ([]Finding, error) {
		return findingsIn(ctx, q, s.of(runrec.Findings), s.of(runrec.Rechecks), id, period, f, o, p)
	})
}

// findingsIn is Findings, of the findings of fs and the rechecks of rs.
func findingsIn(ctx context.Context, q Querier, fs, rs runSource, id, period string, f Filter, o Order, p Page) ([]Finding, error) {
	where, args := f.where(id, period)
	order, oargs, err := o.orderBy()
	if err != nil {
		return nil, err
	}
	query := "SELECT " + findingColumns + " FROM " + withCustomers(fs.rel) + " LEFT JOIN (" + liveSQL(rs.rel) + ") k USING (rule, entity_id) WHERE " +
		where + " ORDER BY " + order
	args = slices.Concat(fs.args, rs.args, []any{id}, args, oargs)
	if p.Limit > 0 {
		query += " LIMIT ? OFFSET ?"
		args = append(args, p.Limit, p.Offset)
	}
	return collect(ctx, q, scanFinding, query, args...)
}

// CountFindings is how many stored findings of reconciliation (id,
// period) f keeps.
func CountFindings(ctx context.Context, q Querier, id, period string, f Filter) (int, error) {
	where, args := f.where(id, period)
	return ofRun(ctx, q, id, period, func(s runSources) (int, error) {
		fs := s.of(runrec.Findings)
		var n int
		err := q.QueryRowContext(ctx, "SELECT count(*) FROM "+withCustomers(fs.rel)+" WHERE "+where, slices.Concat(fs.args, args)...).Scan(&n)
		return n, err
	})
}

// Currencies are the currencies of the stored findings of reconciliation
// (id, period), "" for none, in order.
func Currencies(ctx context.Context, q Querier, id, period string) ([]string, error) {
	return ofRun(ctx, q, id, period, func(s runSources) ([]string, error) {
		fs := s.of(runrec.Findings)
		return collect(ctx, q, scanString, "SELECT DISTINCT coalesce(currency, '') FROM "+fs.rel+" WHERE snapshot_id = ? AND "+periodIs+" ORDER BY 1",
			slices.Concat(fs.args, []any{id, period})...)
	})
}

// EntityFinding is a finding of one record in one reconciliation.
type EntityFinding struct {
	Snapshot, Period, Rule string
	Amount                 string // as stored, exactly
	Currency, Status       string // currency "" for none
	Waived                 bool
	Detail                 string
	// The customer of the record and its invoice's number; "" when not
	// known (Finding's).
	CustomerID, CustomerName, InvoiceNumber string
}

// FindingsOf are the stored findings of record id in every
// reconciliation: newest snapshot first, then by period and rule.
func FindingsOf(ctx context.Context, q Querier, id string) ([]EntityFinding, error) {
	return collect(ctx, q, func(rows *sql.Rows) (EntityFinding, error) {
		var h EntityFinding
		err := rows.Scan(&h.Snapshot, &h.Period, &h.Rule, &h.Amount, &h.Currency, &h.Status, &h.Waived, &h.Detail,
			&h.CustomerID, &h.CustomerName, &h.InvoiceNumber)
		return h, err
	}, `SELECT snapshot_id, coalesce(period, ''), rule, CAST(amount AS VARCHAR), coalesce(currency, ''), status, waived,
		coalesce(detail, ''), coalesce(customer_id, ''), coalesce(customer_name, ''), coalesce(invoice_number, '') FROM `+withCustomers("findings")+` WHERE entity_id = ? ORDER BY snapshot_id DESC, coalesce(period, ''), rule`, id)
}

// RuleTotal is one rule's stored findings in one currency.
type RuleTotal struct {
	Rule, Currency                string // currency "" for none
	Count, Waived, New, Recurring int    // of the open findings (Count, Waived) and by status
	Resolved                      int
	Net, Gross                    money.Amount // of the unwaived open findings
}

// RuleTotals sums the stored findings of reconciliation (id, period) per
// rule and currency, the rules in the order of rules, then by currency.
func RuleTotals(ctx context.Context, q Querier, id, period string, rules []string) ([]RuleTotal, error) {
	return ofRun(ctx, q, id, period, func(s runSources) ([]RuleTotal, error) {
		fs := s.of(runrec.Findings)
		return collect(ctx, q, scanRuleTotal, `SELECT rule, coalesce(currency, ''),
		count(*) FILTER (WHERE status <> 'resolved'), count(*) FILTER (WHERE waived AND status <> 'resolved'),
		count(*) FILTER (WHERE status = 'new'), count(*) FILTER (WHERE status = 'recurring'), count(*) FILTER (WHERE status = 'resolved'),
		CAST(coalesce(sum(amount) FILTER (WHERE NOT waived AND status <> 'resolved'), 0) AS VARCHAR),
		CAST(coalesce(sum(abs(amount)) FILTER (WHERE NOT waived AND status <> 'resolved'), 0) AS VARCHAR)
		FROM `+fs.rel+` WHERE snapshot_id = ? AND `+periodIs+` GROUP BY rule, coalesce(currency, '') ORDER BY list_position(?, rule), 2`,
			slices.Concat(fs.args, []any{id, period, rules})...)
	})
}

func scanRuleTotal(rows *sql.Rows) (RuleTotal, error) {
	var t RuleTotal
	var net, gross string
	if err := rows.Scan(&t.Rule, &t.Currency, &t.Count, &t.Waived, &t.New, &t.Recurring, &t.Resolved, &net, &gross); err != nil {
		return t, err
	}
	var err error
	if t.Net, err = money.Parse(net); err != nil {
		return t, err
	}
	t.Gross, err = money.Parse(gross)
	return t, err
}

// Nameless counts the open findings of reconciliation (id, period) whose
// customer's name is not known, but those of rule except (which names no
// record).
func Nameless(ctx context.Context, q Querier, id, period, except string) (int, error) {
	return ofRun(ctx, q, id, period, func(s runSources) (int, error) {
		fs := s.of(runrec.Findings)
		var n int
		err := q.QueryRowContext(ctx, "SELECT count(*) FROM "+withCustomers(fs.rel)+" WHERE snapshot_id = ? AND "+periodIs+
			" AND status <> 'resolved' AND rule <> ? AND customer_name IS NULL", slices.Concat(fs.args, []any{id, period, except})...).Scan(&n)
		return n, err
	})
}

// withCustomers is the relation of findings rel with the columns
// customer_id, customer_name and invoice_number, NULL where rel has none:
// a read model published before findings had them (its views are made
// again at the next publish), read by a newer billsnap.
func withCustomers(rel string) string {
	return "(SELECT NULL::VARCHAR AS customer_id, NULL::VARCHAR AS customer_name, NULL::VARCHAR AS invoice_number WHERE false UNION ALL BY NAME SELECT * FROM " +
		rel + ") AS findings"
}
