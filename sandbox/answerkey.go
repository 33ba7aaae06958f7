package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
)

// AnswerKey is what a complete, correct export and reconciliation of the
// sandbox must give.
//
// Tables: per table of the export (names as the snapshot store's),
// the record count and the SHA-256 (hex) of the sorted IDs, each followed
// by "\n". In DuckDB: sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)).
// A pricing's ID is ProductPlanChargeID/CurrencyCode. Tables follow every
// change made through the API and by drift faults.
//
// Rules: per rule of reconciliation-rules.md (1–14, every one present), the
// findings of the planted cases, as generated: changes made later through
// the API or by faults are not reflected.
type AnswerKey struct {
	Seed      uint64                  `json:"seed"`
	Customers int                     `json:"customers"`
	Planted   int                     `json:"planted_per_rule"`
	Now       time.Time               `json:"now"`
	Tables    map[string]TableKey     `json:"tables"`
	Rules     map[string][]KeyFinding `json:"rules"`
}

// TableKey is a table's record count and the hash of its sorted IDs.
type TableKey struct {
	Count     int    `json:"count"`
	IDsSHA256 string `json:"ids_sha256"`
}

// KeyFinding is one expected finding; Amount is a decimal string ("-12.50").
type KeyFinding struct {
	Entity   string `json:"entity"`
	EntityID string `json:"entity_id"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// Records is how many rows the key's tables hold together.
func (k AnswerKey) Records() int {
	n := 0
	for _, t := range k.Tables {
		n += t.Count
	}
	return n
}

// HashIDs is the answer key's hash of a set of IDs.
func HashIDs(ids []string) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	h := sha256.New()
	for _, id := range s {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// AnswerKey returns the key for the sandbox's current content.
func (s *Sandbox) AnswerKey() AnswerKey {
	s.mu.RLock()
	defer s.mu.RUnlock()
	k := AnswerKey{Seed: s.opts.Seed, Customers: s.opts.Customers, Planted: s.opts.Planted, Now: s.data.Now,
		Rules: map[string][]KeyFinding{}}
	k.Tables = s.tableKeys()
	for n := 1; n <= 14; n++ {
		k.Rules[ruleIDs[n]] = []KeyFinding{}
	}
	for _, f := range s.data.Expected {
		k.Rules[f.Rule] = append(k.Rules[f.Rule], KeyFinding{Entity: f.Entity, EntityID: f.EntityID, Amount: f.Amount.String(), Currency: f.Currency})
	}
	return k
}

// tableKeys is the count and hash of the IDs of every export table; the
// caller holds s.mu.
func (s *Sandbox) tableKeys() map[string]TableKey {
	keys := map[string]TableKey{}
	for table, ids := range s.tableIDs() {
		keys[table] = TableKey{Count: len(ids), IDsSHA256: HashIDs(ids)}
	}
	return keys
}

// tableIDs lists the IDs of every export table from the served lists.
func (s *Sandbox) tableIDs() map[string][]string {
	t := map[string][]string{}
	for _, l := range s.lists {
		t[l.table] = slices.Clone(l.ids)
	}
	for _, r := range s.lists["productplans"].recs {
		p := r.(*ProductPlan)
		for _, c := range p.ProductPlanCharges {
			t["product_plan_charges"] = append(t["product_plan_charges"], c.ID)
		}
		for _, pr := range p.ProductPlanChargePricings {
			t["product_plan_charge_pricings"] = append(t["product_plan_charge_pricings"], pr.ProductPlanChargeID+"/"+pr.CurrencyCode)
		}
	}
	for _, r := range s.lists["invoices"].recs {
		for _, l := range r.(*Invoice).InvoiceLines {
			t["invoice_lines"] = append(t["invoice_lines"], l.ID)
		}
	}
	for _, table := range []string{"product_plan_charges", "product_plan_charge_pricings", "invoice_lines"} {
		if t[table] == nil {
			t[table] = []string{}
		}
	}
	return t
}

// keyOf is the ID a record is listed by.
func keyOf(r any) string {
	switch v := r.(type) {
	case *Customer:
		return v.ID
	case *Contact:
		return v.ID
	case *PaymentMethod:
		return v.ID
	case *Discount:
		return v.ID
	case *Subscription:
		return v.ID
	case *SubscriptionCharge:
		return v.ID
	case *Invoice:
		return v.ID
	case *ProductPlan:
		return v.ID
	case *Transaction:
		return v.ID
	case *UnitOfMeasure:
		return v.ID
	case *BusinessUnit:
		return v.ID
	case *TaxRule:
		return v.ID
	}
	panic(fmt.Sprintf("sandbox: record of type %T has no key", r))
}
