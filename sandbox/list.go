package sandbox

import (
	"encoding/json"
	"strings"

	"github.com/billsnap/billsnap/sandbox/variants"
)

// list is one paged collection as the service serves it: its records in
// order, each with its JSON encoded once, so that serving a page is copying
// bytes.
type list struct {
	name   string // path on front_url: Customers
	table  string // export table: customers
	object int    // object code of its errors (spec §7)
	recs   []any
	enc    [][]byte
	ids    []string
	index  map[string]int     // ID -> position, built on first lookup
	vary   *variants.Variator // nil: every record as docs/fields.md assumes it
}

// listDef names a collection and where its records come from.
type listDef struct {
	name, table string
	object      int
	recs        func(d *Dataset) []any
}

// listDefs are the collections of docs/fields.md, in that order.
var listDefs = []listDef{
	{"Customers", "customers", 2, func(d *Dataset) []any { return anys(d.Customers) }},
	{"Contacts", "contacts", 4, func(d *Dataset) []any { return anys(d.Contacts) }},
	{"PaymentMethods", "payment_methods", 3, func(d *Dataset) []any { return anys(d.PaymentMethods) }},
	{"Discounts", "discounts", 5, func(d *Dataset) []any { return anys(d.Discounts) }},
	{"Subscriptions", "subscriptions", 6, func(d *Dataset) []any { return anys(d.Subscriptions) }},
	{"SubscriptionCharges", "subscription_charges", 7, func(d *Dataset) []any { return anys(d.Charges) }},
	{"ProductPlans", "product_plans", 9, func(d *Dataset) []any { return anys(d.Plans) }},
	{"Invoices", "invoices", 8, func(d *Dataset) []any { return anys(d.Invoices) }},
	{"Transactions", "transactions", 1, func(d *Dataset) []any { return anys(d.Transactions) }},
	{"UnitsOfMeasure", "units_of_measure", 11, func(d *Dataset) []any { return anys(d.Units) }},
	{"BusinessUnits", "business_units", 12, func(d *Dataset) []any { return anys(d.BusinessUnits) }},
	{"TaxRules", "tax_rules", 13, func(d *Dataset) []any { return anys(d.TaxRules) }},
}

// ListNames are the paths of the paged lists on front_url, in the order of docs/fields.md.
func ListNames() []string {
	names := make([]string, len(listDefs))
	for i, d := range listDefs {
		names[i] = d.name
	}
	return names
}

func anys[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func newList(def listDef, d *Dataset) *list {
	l := &list{name: def.name, table: def.table, object: def.object, recs: def.recs(d)}
	l.enc = make([][]byte, len(l.recs))
	l.ids = make([]string, len(l.recs))
	for i, r := range l.recs {
		l.enc[i], l.ids[i] = l.encode(r), keyOf(r)
	}
	return l
}

// encode is the record's JSON as the list sends it, varied.
func (l *list) encode(r any) []byte { return l.vary.Record(l.table, encode(r), nil) }

// encode is the record's JSON as the service sends it in a list.
func encode(r any) []byte {
	if p, ok := r.(*ProductPlan); ok {
		r = planView(p, false, false)
	}
	b, err := json.Marshal(r)
	if err != nil {
		panic("sandbox: encode: " + err.Error())
	}
	return b
}

// planView is a plan with its nested lists only where expanded.
func planView(p *ProductPlan, charges, pricings bool) any {
	v := struct {
		ID                        string
		FullName                  string
		CurrencyCode              string
		ActiveCurrencies          string
		ProductPlanCharges        any `json:",omitempty"`
		ProductPlanChargePricings any `json:",omitempty"`
	}{ID: p.ID, FullName: p.FullName, CurrencyCode: p.CurrencyCode, ActiveCurrencies: p.ActiveCurrencies}
	if charges {
		v.ProductPlanCharges = nonNil(p.ProductPlanCharges)
	}
	if pricings {
		v.ProductPlanChargePricings = nonNil(p.ProductPlanChargePricings)
	}
	return v
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// find returns the position of the record with id, or -1.
func (l *list) find(id string) int {
	if l.index == nil {
		l.index = make(map[string]int, len(l.ids))
		for i, k := range l.ids {
			l.index[strings.ToLower(k)] = i
		}
	}
	if i, ok := l.index[strings.ToLower(id)]; ok {
		return i
	}
	return -1
}

// reencode refreshes the JSON of the record at i after a change.
func (l *list) reencode(i int) { l.enc[i] = l.encode(l.recs[i]) }

// insertFront puts r before every other record, as a record created while a
// client pages would if the list is newest-first.
func (l *list) insertFront(r any) {
	l.recs = append([]any{r}, l.recs...)
	l.enc = append([][]byte{l.encode(r)}, l.enc...)
	l.ids = append([]string{keyOf(r)}, l.ids...)
	l.index = nil
}

// appendRecord adds r at the end of the list. No other record moves, so
// the index, when built, gains r's position.
func (l *list) appendRecord(r any) {
	l.recs = append(l.recs, r)
	l.enc = append(l.enc, l.encode(r))
	l.ids = append(l.ids, keyOf(r))
	if l.index != nil {
		l.index[strings.ToLower(keyOf(r))] = len(l.ids) - 1
	}
}

// moveLastToFront puts the last record before every other one.
func (l *list) moveLastToFront() {
	n := len(l.recs) - 1
	if n <= 0 {
		return
	}
	l.recs = append([]any{l.recs[n]}, l.recs[:n]...)
	l.enc = append([][]byte{l.enc[n]}, l.enc[:n]...)
	l.ids = append([]string{l.ids[n]}, l.ids[:n]...)
	l.index = nil
}

// deleteFront removes the first record.
func (l *list) deleteFront() {
	if len(l.recs) == 0 {
		return
	}
	l.recs, l.enc, l.ids = l.recs[1:], l.enc[1:], l.ids[1:]
	l.index = nil
}
