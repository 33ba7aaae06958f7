package sandbox

import (
	"slices"
	"strings"
	"time"
)

// drift applies the insert, delete and move faults of coll after page was
// served: a record created, deleted or moved at the front of the list
// shifts every later page by one, as it does on a live service that lists
// newest (or last changed) first.
func (s *Sandbox) drift(l *list, coll string, page int) {
	f := s.faults
	insert, del, move := f.fire(f.Insert, coll, page), f.fire(f.Delete, coll, page), f.fire(f.Move, coll, page)
	if !insert && !del && !move {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.history) == 0 {
		s.history = append(s.history, s.tableKeys())
	}
	if insert {
		l.insertFront(s.freshRecord(l))
	}
	if del {
		l.deleteFront()
	}
	if move {
		l.moveLastToFront()
	}
	s.history = append(s.history, s.tableKeys())
}

// States lists, per table, every state it has been in since the sandbox
// started, as the answer key's count and hash of its IDs: the first one,
// and one after each drift fault. A walk that overlaps a drift is
// consistent when it equals one of them; a snapshot equal to none is
// wrong.
func (s *Sandbox) States() map[string][]TableKey {
	s.mu.RLock()
	defer s.mu.RUnlock()
	history := s.history
	if len(history) == 0 {
		history = []map[string]TableKey{s.tableKeys()}
	}
	out := map[string][]TableKey{}
	for _, keys := range history {
		for table, k := range keys {
			if !slices.Contains(out[table], k) {
				out[table] = append(out[table], k)
			}
		}
	}
	return out
}

// freshRecord makes a record for l that triggers no reconciliation rule on
// its own: it belongs to the first customer (subscription, plan) listed,
// and bills nothing.
func (s *Sandbox) freshRecord(l *list) any {
	id, now := s.newID(), s.data.Now
	cust := s.lists["customers"].recs[0].(*Customer)
	switch l.table {
	case "customers":
		return &Customer{ID: id, FullName: "Drift customer", CurrencyCode: "USD", Created: now}
	case "contacts":
		return &Contact{ID: id, CustomerID: cust.ID, FullName: "Drift contact"}
	case "payment_methods":
		return &PaymentMethod{ID: id, CustomerID: cust.ID, Type: "Card", Active: true, ExpiryDate: now.AddDate(2, 0, 0)}
	case "discounts":
		return &Discount{ID: id, SubscriptionID: s.firstSubscription().ID, Percentage: 10, StartDate: now, EndDate: now.AddDate(1, 0, 0)}
	case "subscriptions":
		p := s.planSelling(cust.CurrencyCode)
		return &Subscription{ID: id, CustomerID: cust.ID, ProductPlanID: p.ID, CurrencyCode: cust.CurrencyCode, State: StateNotActivated, StartDate: now}
	case "subscription_charges":
		sub := s.firstSubscription()
		ppc := s.planByID(sub.ProductPlanID).ProductPlanCharges[0]
		return &SubscriptionCharge{ID: id, SubscriptionID: sub.ID, ProductPlanChargeID: ppc.ID, ReferenceID: s.newID(),
			NextChargeDate: now.Add(-40 * 24 * time.Hour), StateCode: 1, Status: StatusCharged}
	case "invoices":
		return &Invoice{ID: id, InvoiceNumber: "9999999", CustomerID: cust.ID, InvoiceDate: now, DueDate: now.AddDate(0, 0, 14),
			CurrencyCode: cust.CurrencyCode, InvoiceLines: []*InvoiceLine{}}
	case "product_plans":
		return &ProductPlan{ID: id, FullName: "Drift plan", CurrencyCode: "USD", ActiveCurrencies: "USD"}
	case "transactions":
		return &Transaction{ID: id, CustomerID: cust.ID, Type: TxPayment, Status: TxPending, Amount: 100, CurrencyCode: cust.CurrencyCode, TransactionDate: now}
	case "units_of_measure":
		return &UnitOfMeasure{ID: id, Name: "Drift unit"}
	case "business_units":
		return &BusinessUnit{ID: id, Name: "Drift unit", CurrencyCode: "USD"}
	}
	return &TaxRule{ID: id, Name: "Drift rule", Rate: 0.1}
}

// firstSubscription is the first listed subscription whose plan exists
// and has charges.
func (s *Sandbox) firstSubscription() *Subscription {
	for _, r := range s.lists["subscriptions"].recs {
		if sub := r.(*Subscription); s.planByID(sub.ProductPlanID) != nil && len(s.planByID(sub.ProductPlanID).ProductPlanCharges) > 0 {
			return sub
		}
	}
	panic("sandbox: no subscription with a plan")
}

func (s *Sandbox) planByID(id string) *ProductPlan {
	pl := s.lists["productplans"]
	if i := pl.find(id); i >= 0 {
		return pl.recs[i].(*ProductPlan)
	}
	return nil
}

// planSelling is the first plan with cur among its active currencies.
func (s *Sandbox) planSelling(cur string) *ProductPlan {
	for _, r := range s.lists["productplans"].recs {
		if p := r.(*ProductPlan); containsCode(p.ActiveCurrencies, cur) {
			return p
		}
	}
	return s.lists["productplans"].recs[0].(*ProductPlan)
}

// containsCode reports whether the comma-separated list holds code.
func containsCode(list, code string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(c) == code {
			return true
		}
	}
	return false
}
