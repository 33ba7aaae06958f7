package sandbox

import (
	"fmt"
	"time"
)

// subBundle is one subscription's records, kept while it is generated so a
// planted case can change them.
type subBundle struct {
	cust     *Customer
	planted  bool // made for a planted case: billed and paid plainly
	sub      *Subscription
	plan     *ProductPlan
	charged  [][]*SubscriptionCharge // per billing month, per plan charge
	active   []*SubscriptionCharge   // per plan charge; nil for a cancelled subscription
	invoices []*Invoice              // per billing month; nil where nothing was invoiced
	payments []*Transaction          // the settled payment of each month's invoice, or nil
}

// customer makes one customer with contacts, payment methods and
// subscriptions. rule 0 makes a clean customer; rule 1–14 makes a customer
// with one activated subscription of three months (two invoices paid, the
// last one open) and then plants that rule's case in it.
func (g *gen) customer(rule int) {
	cur := g.pick(currencies)
	n := len(g.d.Customers) + 1
	c := &Customer{ID: g.id(), FullName: fmt.Sprintf("Customer %d", n), CompanyName: fmt.Sprintf("Company %d Ltd", n),
		CurrencyCode: cur, Email: fmt.Sprintf("billing%d@example.com", n), Culture: g.pick([]string{"en-US", "da-DK", "de-DE"})}
	c.Created = g.o.Now.AddDate(0, -g.o.Months-1, -g.rng.IntN(300))
	g.d.Customers = append(g.d.Customers, c)
	for i := range 1 + g.rng.IntN(2) {
		g.d.Contacts = append(g.d.Contacts, &Contact{ID: g.id(), CustomerID: c.ID, FullName: fmt.Sprintf("Contact %d.%d", n, i+1), Email: fmt.Sprintf("c%d.%d@example.com", n, i+1)})
	}
	for range 1 + g.rng.IntN(2) {
		g.d.PaymentMethods = append(g.d.PaymentMethods, &PaymentMethod{ID: g.id(), CustomerID: c.ID, Type: g.pick([]string{"Card", "SEPA", "Invoice"}),
			Active: g.chance(0.9), ExpiryDate: g.o.Now.AddDate(1+g.rng.IntN(3), 0, 0).Truncate(24 * time.Hour)})
	}
	if rule != 0 {
		plant(g, g.subscription(c, true), rule)
		return
	}
	for range 1 + g.rng.IntN(2) {
		g.subscription(c, false)
	}
}

// subscription makes a subscription with its billing history: for each
// billing month a charged charge (Status 7) per product and an invoice for
// those with Amount above zero; then the active charges (Status 1) waiting
// for the next charge date.
func (g *gen) subscription(c *Customer, planted bool) *subBundle {
	plans := g.byCur[c.CurrencyCode]
	b := &subBundle{cust: c, planted: planted, plan: plans[g.rng.IntN(len(plans))]}
	state, months := StateActivated, 3
	if !planted {
		state, months = g.state()
	}
	next := nextAnchor(g.o.Now, 1+g.rng.IntN(28))
	b.sub = &Subscription{ID: g.id(), CustomerID: c.ID, ProductPlanID: b.plan.ID, CurrencyCode: c.CurrencyCode, State: state,
		StartDate: next.AddDate(0, -months, -g.rng.IntN(20)), BillingCycle: "Monthly"}
	g.d.Subscriptions = append(g.d.Subscriptions, b.sub)
	if g.chance(0.2) {
		g.d.Discounts = append(g.d.Discounts, &Discount{ID: g.id(), SubscriptionID: b.sub.ID, Percentage: float64(5 * (1 + g.rng.IntN(5))),
			StartDate: b.sub.StartDate, EndDate: b.sub.StartDate.AddDate(1, 0, 0)})
	}
	g.history(b, next, months, planted)
	return b
}

// state picks a subscription state and how many months it has been billed.
func (g *gen) state() (string, int) {
	months := 1 + g.rng.IntN(g.o.Months)
	switch r := g.rng.Float64(); {
	case r < 0.07:
		return StateNotActivated, 0
	case r < 0.14:
		return StatePaused, months
	case r < 0.20:
		return StateCancelled, months
	}
	return StateActivated, months
}

// nextAnchor is the first midnight (UTC) on day-of-month day after now.
func nextAnchor(now time.Time, day int) time.Time {
	t := time.Date(now.Year(), now.Month(), day, 0, 0, 0, 0, time.UTC)
	if !t.After(now) {
		t = t.AddDate(0, 1, 0)
	}
	return t
}

func (g *gen) history(b *subBundle, next time.Time, months int, planted bool) {
	refs := make([]string, len(b.plan.ProductPlanCharges))
	qty := make([]int64, len(refs))
	for j, ppc := range b.plan.ProductPlanCharges {
		refs[j], qty[j] = g.id(), g.startQuantity(ppc, j, planted)
	}
	for k := months; k >= 1; k-- {
		date := next.AddDate(0, -k, 0)
		row := make([]*SubscriptionCharge, len(refs))
		for j := range refs {
			row[j] = g.charge(b, j, refs[j], qty[j], date, StatusCharged)
			qty[j] = g.nextQuantity(qty[j], j, planted)
		}
		inv, pay := g.invoice(b, row, date, planted && k == 1)
		b.charged = append(b.charged, row)
		b.invoices = append(b.invoices, inv)
		b.payments = append(b.payments, pay)
	}
	if b.sub.State == StateCancelled {
		return
	}
	for j := range refs {
		b.active = append(b.active, g.charge(b, j, refs[j], qty[j], next, StatusActive))
	}
}

// startQuantity is a product's first quantity. In a planted subscription
// product 0 is always billed and product 1 never is.
func (g *gen) startQuantity(ppc *ProductPlanCharge, j int, planted bool) int64 {
	switch {
	case planted && j == 0:
		return 1 + g.rng.Int64N(3)
	case planted && j == 1:
		return 0
	case g.chance(0.5):
		return ppc.DefaultAmount
	}
	return g.rng.Int64N(4)
}

// nextQuantity is the quantity after a billing run: now and then the
// quantity of the active charge is set anew.
func (g *gen) nextQuantity(q int64, j int, planted bool) int64 {
	if !g.chance(0.2) || (planted && j == 1) {
		return q
	}
	if planted && j == 0 {
		return 1 + g.rng.Int64N(3)
	}
	return g.rng.Int64N(4)
}

func (g *gen) charge(b *subBundle, j int, ref string, qty int64, date time.Time, status int) *SubscriptionCharge {
	ch := &SubscriptionCharge{ID: g.id(), SubscriptionID: b.sub.ID, ProductPlanChargeID: b.plan.ProductPlanCharges[j].ID,
		ReferenceID: ref, Amount: qty, NextChargeDate: date, StateCode: 1, Status: status}
	g.d.Charges = append(g.d.Charges, ch)
	return ch
}
