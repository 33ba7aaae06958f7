// Package record reads one record of the store as the workspace's record
// page and /api/entities show it ([Load]): its typed columns and raw JSON
// (as text when it nests too deep), the records it names and that name it,
// its parent's currency when it has none of its own, its findings in every
// reconciliation, the snapshots that hold it and a diff between two of
// them. It reads through snapshot/readmodel and knows nothing of HTTP or
// pages.
package record

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// kinds maps what a record is called (a finding's entity, or a table's
// name) to its table: invoice and invoices are both invoices.
var kinds = func() map[string]string {
	m := map[string]string{"unit_of_measure": "units_of_measure"}
	for _, t := range catalog.Tables() {
		m[t.Name] = t.Name
		if k, ok := strings.CutSuffix(t.Name, "s"); ok {
			if _, taken := m[k]; !taken {
				m[k] = t.Name
			}
		}
	}
	return m
}()

// kindOf is the singular name of table.
func kindOf(table string) string {
	for k, t := range kinds {
		if t == table && k != table {
			return k
		}
	}
	return table
}

// Link is a record to go to.
type Link struct {
	Kind, ID string
	Via      string // the column that joins them
}

// View is one record of one snapshot, with what it is joined to,
// its findings over history and the snapshots it is in.
type View struct {
	Kind     string          `json:"kind"`
	Table    string          `json:"table"`
	ID       string          `json:"id"`
	Snapshot string          `json:"snapshot_id"`
	Columns  []Column        `json:"columns"`
	Raw      json.RawMessage `json:"raw"`
	RawNote  string          `json:"raw_note,omitempty"` // why the raw JSON is not shown as JSON (setRaw)
	RawText  string          `json:"raw_text,omitempty"` // and the text shown instead
	Parents  []Link          `json:"parents"`
	Children []Link          `json:"children"`
	Findings []Finding       `json:"findings"`
	In       []string        `json:"snapshots"` // the complete snapshots that hold it, oldest first
	Diff     *Diff           `json:"diff,omitempty"`
	// Timeline is its versions in the store's history, oldest first.
	Timeline []Version `json:"timeline"`
	// Absent says the snapshot does not hold the record, whose timeline
	// history still has (deleted, or not yet inserted then); "" when it
	// does.
	Absent string `json:"absent,omitempty"`
	// From and To are what the compare form offers: the diff's snapshots,
	// else the two newest that hold the record (never one twice).
	From, To string `json:"-"`
	Also     []Link `json:"also,omitempty"` // for a finding's compound entity: the records it names
}

type Column struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
	Text  string `json:"-"` // the value as the page shows it
}

// Finding is a finding of the record in one reconciliation.
type Finding struct {
	Snapshot string `json:"snapshot_id"`
	Period   string `json:"period"`
	Rule     string `json:"rule"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	Status   string `json:"status"`
	Waived   bool   `json:"waived"`
	Detail   string `json:"detail"`
	// The customer of the record (ID and name) and its invoice's number
	// as the reconciliation found them; "" when not known.
	CustomerID    string `json:"customer_id"`
	CustomerName  string `json:"customer_name"`
	InvoiceNumber string `json:"invoice_number"`
	// Pending: a waiver made since this reconciliation names it (the
	// newest snapshot's only); the next reconcile applies it.
	Pending bool `json:"waiver_pending,omitempty"`
}

// Diff is a record's fields in two snapshots, the changed ones marked.
type Diff struct {
	A, B string
	Rows []DiffRow
}

type DiffRow struct {
	Name    string
	A, B    string
	Changed bool
}

// NotFoundError is a record the snapshot does not hold, or a kind of record
// there is none of.
type NotFoundError struct{ kind, id, snapshot string }

func (e NotFoundError) Error() string {
	if e.snapshot == "" {
		return fmt.Sprintf("no kind of record %q", e.kind)
	}
	return fmt.Sprintf("no %s %q in snapshot %s", e.kind, e.id, e.snapshot)
}

// compound are the entities of findings that are not one record: what
// they name, and how to go to it.
func compound(kind, id string) (table string, also []Link, ok bool) {
	switch kind {
	case "reference":
		return "", []Link{{Kind: "subscription_charge", ID: id, Via: "reference_id"}}, true
	case "subscription_product":
		sub, ppc, _ := strings.Cut(id, "/")
		return "", []Link{{Kind: "subscription", ID: sub}, {Kind: "product_plan_charge", ID: ppc}}, true
	case "collection":
		return "", nil, true
	}
	return "", nil, false
}

// Load reads record id of kind in snapshot snap (an ID or latest),
// and the diff between snapshots a and b when both are given.
func Load(ctx context.Context, db *sql.DB, kind, id, snap, a, b string) (*View, error) {
	info, _, err := reconcile.Resolve(ctx, db, snap)
	if err != nil {
		return nil, err
	}
	v := &View{Kind: kind, ID: id, Snapshot: info.ID}
	if _, also, ok := compound(kind, id); ok {
		v.Also = also
		v.Findings, err = historyOf(ctx, db, id)
		return v, err
	}
	table, ok := kinds[kind]
	if !ok {
		return nil, NotFoundError{kind: kind}
	}
	v.Table, v.Kind = table, kindOf(table)
	if v.Timeline, err = timelineOf(ctx, db, table, id); err != nil {
		return nil, err
	}
	if err := v.readRecord(ctx, db); err != nil {
		return v.absent(err)
	}
	if err := v.inheritCurrency(ctx, db); err != nil {
		return nil, err
	}
	if v.Children, err = childrenOf(ctx, db, table, id, info.ID); err != nil {
		return nil, err
	}
	if v.In, err = snapshotsOf(ctx, db, table, id); err != nil {
		return nil, err
	}
	if v.Findings, err = historyOf(ctx, db, id); err != nil {
		return nil, err
	}
	if a != "" && b != "" {
		v.Diff, err = diffOf(ctx, db, table, id, a, b)
	}
	return v, err
}

// absent is v when the snapshot does not hold its record (err, a
// NotFoundError) but history has its versions: its timeline, saying so;
// else err.
func (v *View) absent(err error) (*View, error) {
	if _, ok := err.(NotFoundError); !ok || len(v.Timeline) == 0 {
		return nil, err
	}
	v.Absent = fmt.Sprintf("Snapshot %s does not hold %s %s: its versions in the store's history are below.", v.Snapshot, v.Kind, v.ID)
	return v, nil
}

// readRecord reads the typed columns and the raw JSON of v's record, the
// latter as DuckDB's text (the driver's decoding of a JSON column gives
// nothing for one nested too deep).
func (v *View) readRecord(ctx context.Context, db *sql.DB) error {
	rec, ok, err := readmodel.RecordOf(ctx, db, v.Table, v.Snapshot, v.ID)
	if err != nil {
		return err
	}
	if !ok {
		return NotFoundError{kind: v.Kind, id: v.ID, snapshot: v.Snapshot}
	}
	vals := rec.Values
	for i, n := range rec.Columns {
		switch {
		case n == "_raw":
			raw, _ := vals[i].(string)
			v.setRaw(raw)
		case n == "id":
		default:
			v.Columns = append(v.Columns, Column{Name: n, Value: plain(vals[i]), Text: display(vals[i])})
			if ref, ok := strings.CutSuffix(n, "_id"); ok && vals[i] != nil {
				if _, known := kinds[ref]; known {
					v.Parents = append(v.Parents, Link{Kind: ref, ID: fmt.Sprint(vals[i]), Via: n})
				}
			}
		}
	}
	return nil
}

// inheritCurrency shows the currency of a record that has none of its
// own (an invoice line, a subscription charge): the first of its parents'
// that has one, named as theirs, first among its columns.
func (v *View) inheritCurrency(ctx context.Context, db *sql.DB) error {
	for _, c := range v.Columns {
		if c.Name == "currency_code" {
			return nil
		}
	}
	for _, p := range v.Parents {
		rec, ok, err := readmodel.RecordOf(ctx, db, kinds[p.Kind], v.Snapshot, p.ID)
		if err != nil {
			return err
		}
		if i := slices.Index(rec.Columns, "currency_code"); ok && i >= 0 && rec.Values[i] != nil {
			cur := fmt.Sprint(rec.Values[i])
			v.Columns = slices.Insert(v.Columns, 0, Column{Name: "currency_code", Value: cur, Text: cur + " (its " + p.Kind + "'s)"})
			return nil
		}
	}
	return nil
}

// childrenOf are the records of snapshot snap whose columns name record id
// of table: a customer's subscriptions, invoices and transactions, an
// invoice's lines, a charge's invoice lines.
func childrenOf(ctx context.Context, db *sql.DB, table, id, snap string) ([]Link, error) {
	col := kindOf(table) + "_id"
	var out []Link
	for _, t := range catalog.Tables() {
		if !slices.Contains(t.ColumnNames(), col) {
			continue
		}
		ids, err := readmodel.IDsWhere(ctx, db, t.Name, col, snap, id)
		if err != nil {
			return nil, err
		}
		for _, child := range ids {
			out = append(out, Link{Kind: kindOf(t.Name), ID: child, Via: col})
		}
	}
	return out, nil
}

// snapshotsOf are the complete snapshots that hold the record.
func snapshotsOf(ctx context.Context, db *sql.DB, table, id string) ([]string, error) {
	return readmodel.SnapshotsHolding(ctx, db, table, id)
}

// historyOf is every finding of the record, in every reconciliation.
func historyOf(ctx context.Context, db *sql.DB, id string) ([]Finding, error) {
	found, err := readmodel.FindingsOf(ctx, db, id)
	var out []Finding
	for _, h := range found {
		out = append(out, Finding{Snapshot: h.Snapshot, Period: h.Period, Rule: h.Rule, Amount: h.Amount,
			Currency: h.Currency, Status: h.Status, Waived: h.Waived, Detail: h.Detail,
			CustomerID: h.CustomerID, CustomerName: h.CustomerName, InvoiceNumber: h.InvoiceNumber})
	}
	return out, err
}

// diffOf compares the record's fields in snapshots a and b.
func diffOf(ctx context.Context, db *sql.DB, table, id, a, b string) (*Diff, error) {
	d := &Diff{A: a, B: b}
	va, err := fieldsIn(ctx, db, table, id, a)
	if err != nil {
		return nil, err
	}
	vb, err := fieldsIn(ctx, db, table, id, b)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range []map[string]string{va, vb} {
		for n := range m {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	for _, n := range names {
		d.Rows = append(d.Rows, DiffRow{Name: n, A: va[n], B: vb[n], Changed: va[n] != vb[n]})
	}
	return d, nil
}

// fieldsIn are the record's fields as sent in snapshot snap (its raw
// JSON's top-level fields), each as JSON text; nil when it is not there.
func fieldsIn(ctx context.Context, db *sql.DB, table, id, snap string) (map[string]string, error) {
	raw, err := readmodel.RawOf(ctx, db, table, snap, id)
	if err == sql.ErrNoRows {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw.String), &fields); err != nil {
		return nil, fmt.Errorf("the raw record of %s %s in %s: %w", table, id, snap, err)
	}
	out := map[string]string{}
	for k, v := range fields {
		out[k] = string(v)
	}
	return out, nil
}

// plain is a column's value as JSON shows it: times in UTC, decimals as
// their exact text with their scale's digits (150.00).
func plain(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case []byte:
		return string(x)
	case duckdb.Decimal:
		return decimalText(x)
	case fmt.Stringer:
		return x.String()
	}
	return v
}

// display is a column's value as a page shows it: money (a decimal of
// two places) as the overview does (1,234.50), other decimals without
// trailing zeros, a time at midnight UTC as a date, other times in UTC
// with the zone, nothing for NULL.
func display(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case duckdb.Decimal:
		if x.Scale == 2 && x.Value.IsInt64() { // cents
			return money.Amount(x.Value.Int64()).Grouped()
		}
		text := decimalText(x)
		if strings.Contains(text, ".") {
			text = strings.TrimSuffix(strings.TrimRight(text, "0"), ".")
		}
		return text
	case time.Time:
		t := x.UTC()
		if t.Equal(t.Truncate(24 * time.Hour)) {
			return t.Format(time.DateOnly)
		}
		return t.Format("2006-01-02 15:04:05 UTC")
	}
	return fmt.Sprint(plain(v))
}

// decimalText is d exactly, with as many decimals as its scale.
func decimalText(d duckdb.Decimal) string {
	digits := new(big.Int).Abs(d.Value).String()
	if scale := int(d.Scale); scale > 0 {
		digits = strings.Repeat("0", max(0, scale+1-len(digits))) + digits
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if d.Value.Sign() < 0 {
		return "-" + digits
	}
	return digits
}
