package sandbox

import (
	"slices"
	"strings"
	"time"
)

// Rule IDs of docs/rules.md, by number.
var ruleIDs = map[int]string{
	1: "charge_not_invoiced", 2: "zero_quantity_invoiced", 3: "quantity_mismatch", 4: "price_mismatch",
	5: "duplicate_invoicing", 6: "invoice_total_mismatch", 7: "missed_billing_run", 8: "multiple_active_charges",
	9: "missing_product_charge", 10: "orphan_reference", 11: "paid_without_payment", 12: "payment_without_invoice",
	13: "payment_amount_mismatch", 14: "currency_mismatch", 15: "paid_invoice_changed", 16: "snapshot_incomplete",
}

// Finding is one finding a planted case must produce.
type Finding struct {
	Rule     string
	Entity   string
	EntityID string
	Amount   Money
	Currency string
}

// planters change a clean planted subscription (three months: invoices 0
// and 1 paid, invoice 2 open; product 0 billed every month, product 1
// never) so that it triggers exactly one rule, and record what it must find.
// The int is the case's number within its rule, to vary the case.
var planters = map[int]func(g *gen, b *subBundle, n int){
	1: plantNotInvoiced, 2: plantZeroQuantity, 3: plantQuantityMismatch, 4: plantPriceMismatch,
	5: plantDuplicate, 6: plantTotalMismatch, 7: plantMissedRun, 8: plantMultipleActive,
	9: plantMissingProduct, 10: plantOrphan, 11: plantPaidWithoutPayment, 12: plantPaymentWithoutInvoice,
	13: plantPaymentMismatch, 14: plantCurrencyMismatch,
}

func plant(g *gen, b *subBundle, rule int) {
	n := 0
	for _, f := range g.d.Expected {
		if f.Rule == ruleIDs[rule] {
			n++
		}
	}
	planters[rule](g, b, n)
}

func (g *gen) expect(rule int, entity, id string, amount Money, cur string) {
	g.d.Expected = append(g.d.Expected, Finding{Rule: ruleIDs[rule], Entity: entity, EntityID: id, Amount: amount, Currency: cur})
}

// lineOf returns the line of inv that names charge.
func lineOf(inv *Invoice, charge *SubscriptionCharge) *InvoiceLine {
	for _, l := range inv.InvoiceLines {
		if l.SubscriptionChargeID == charge.ID {
			return l
		}
	}
	panic("sandbox: planted charge has no line")
}

// adjust moves an invoice's total, and its settled payment with it, by delta.
func adjust(inv *Invoice, pay *Transaction, delta Money) {
	inv.TotalAmount += delta
	if pay != nil {
		pay.Amount += delta
	}
}

func (g *gen) priceOf(ch *SubscriptionCharge, cur string) Money {
	return g.price[ch.ProductPlanChargeID+"/"+cur]
}

// Rule 1: the line of a billed charge is removed (with its invoice and
// payment when it was the only line).
func plantNotInvoiced(g *gen, b *subBundle, _ int) {
	ch, inv := b.charged[0][0], b.invoices[0]
	l := lineOf(inv, ch)
	if len(inv.InvoiceLines) == 1 {
		g.dropped[inv], g.dropped[b.payments[0]] = true, true
	} else {
		inv.InvoiceLines = slices.DeleteFunc(inv.InvoiceLines, func(x *InvoiceLine) bool { return x == l })
		adjust(inv, b.payments[0], -l.Amount)
	}
	g.expect(1, "subscription_charge", ch.ID, Money(ch.Amount)*g.priceOf(ch, b.sub.CurrencyCode), b.sub.CurrencyCode)
}

// Rule 2: a billed charge's quantity is set to zero after it was invoiced.
func plantZeroQuantity(g *gen, b *subBundle, _ int) {
	ch, inv := b.charged[0][0], b.invoices[0]
	ch.Amount = 0
	l := lineOf(inv, ch)
	g.expect(2, "invoice_line", l.ID, -l.Amount, inv.CurrencyCode)
}

// Rule 3: the charge's quantity grows after invoicing, or the line bills two
// more than the charge holds.
func plantQuantityMismatch(g *gen, b *subBundle, n int) {
	ch, inv := b.charged[0][0], b.invoices[0]
	l := lineOf(inv, ch)
	if n%2 == 0 {
		ch.Amount++
	} else {
		l.Quantity += 2
		adjust(inv, b.payments[0], 2*l.UnitPrice)
		l.Amount += 2 * l.UnitPrice
	}
	g.expect(3, "invoice_line", l.ID, Money(ch.Amount-l.Quantity)*l.UnitPrice, inv.CurrencyCode)
}

// Rule 4: a line is billed at 1.50 over the plan's price.
func plantPriceMismatch(g *gen, b *subBundle, _ int) {
	ch, inv := b.charged[0][0], b.invoices[0]
	l := lineOf(inv, ch)
	l.UnitPrice += 150
	adjust(inv, b.payments[0], 150*Money(l.Quantity))
	l.Amount += 150 * Money(l.Quantity)
	g.expect(4, "invoice_line", l.ID, -150*Money(l.Quantity), inv.CurrencyCode)
}

// Rule 5: month 0's charge is billed again on month 1's invoice.
func plantDuplicate(g *gen, b *subBundle, _ int) {
	first := lineOf(b.invoices[0], b.charged[0][0])
	again := *first
	again.ID = g.id()
	b.invoices[1].InvoiceLines = append(b.invoices[1].InvoiceLines, &again)
	adjust(b.invoices[1], b.payments[1], again.Amount)
	g.expect(5, "invoice_line", again.ID, -again.Amount, b.invoices[1].CurrencyCode)
}

// Rule 6: an invoice's total (and what was paid) is 10.00 over its lines.
func plantTotalMismatch(g *gen, b *subBundle, _ int) {
	adjust(b.invoices[0], b.payments[0], 1000)
	g.expect(6, "invoice", b.invoices[0].ID, -1000, b.invoices[0].CurrencyCode)
}

// Rule 7: the billing run for a billed product did not happen five days ago.
func plantMissedRun(g *gen, b *subBundle, _ int) {
	a := b.active[0]
	a.NextChargeDate = g.o.Now.AddDate(0, 0, -5).Truncate(24 * time.Hour)
	g.expect(7, "subscription_charge", a.ID, Money(a.Amount)*g.priceOf(a, b.sub.CurrencyCode), b.sub.CurrencyCode)
}

// Rule 8: a second active charge carries product 1's reference.
func plantMultipleActive(g *gen, b *subBundle, _ int) {
	twin := *b.active[1]
	twin.ID = g.id()
	g.d.Charges = append(g.d.Charges, &twin)
	g.expect(8, "reference", twin.ReferenceID, 0, b.sub.CurrencyCode)
}

// Rule 9: the active charge of the product with the largest default quantity
// is gone.
func plantMissingProduct(g *gen, b *subBundle, _ int) {
	j := 0
	for i, ppc := range b.plan.ProductPlanCharges {
		if ppc.DefaultAmount > b.plan.ProductPlanCharges[j].DefaultAmount {
			j = i
		}
	}
	ppc := b.plan.ProductPlanCharges[j]
	g.dropped[b.active[j]] = true
	g.expect(9, "subscription_product", b.sub.ID+"/"+ppc.ID, Money(ppc.DefaultAmount)*g.price[ppc.ID+"/"+b.sub.CurrencyCode], b.sub.CurrencyCode)
}

// Rule 10: one of six references names a record that does not exist.
func plantOrphan(g *gen, b *subBundle, n int) {
	cur := b.sub.CurrencyCode
	switch n % 6 {
	case 0:
		ch := b.charged[0][1]
		ch.ProductPlanChargeID = g.id()
		g.expect(10, "subscription_charge", ch.ID, 0, cur)
	case 1:
		b.sub.CustomerID = g.id()
		g.expect(10, "subscription", b.sub.ID, 0, cur)
	case 2:
		b.sub.ProductPlanID = g.id()
		g.expect(10, "subscription", b.sub.ID, 0, cur)
	case 3:
		b.invoices[2].CustomerID = g.id()
		g.expect(10, "invoice", b.invoices[2].ID, 0, cur)
	case 4:
		l := g.line(b.charged[2][0], b.plan.ProductPlanCharges[0], cur)
		l.SubscriptionChargeID, l.Quantity, l.Amount = g.id(), 1, l.UnitPrice
		b.invoices[2].InvoiceLines = append(b.invoices[2].InvoiceLines, l)
		adjust(b.invoices[2], nil, l.Amount)
		g.expect(10, "invoice_line", l.ID, l.Amount, cur)
	case 5:
		ghost := g.id()
		t := g.tx(b.cust.ID, &ghost, TxPayment, TxSettled, 1234, cur, g.o.Now.AddDate(0, 0, -2))
		g.expect(10, "transaction", t.ID, t.Amount, cur)
	}
}

// Rule 11: the payment of a paid invoice failed.
func plantPaidWithoutPayment(g *gen, b *subBundle, _ int) {
	b.payments[0].Status = TxFailed
	g.expect(11, "invoice", b.invoices[0].ID, b.invoices[0].TotalAmount, b.invoices[0].CurrencyCode)
}

// Rule 12: a settled payment names no invoice, or an invoice not marked paid.
func plantPaymentWithoutInvoice(g *gen, b *subBundle, n int) {
	cur := b.sub.CurrencyCode
	var t *Transaction
	switch n % 3 {
	case 0:
		t = g.tx(b.cust.ID, nil, TxPayment, TxSettled, 2500, cur, g.o.Now.AddDate(0, 0, -3))
	case 1:
		t = g.tx(b.cust.ID, &b.invoices[2].ID, TxPayment, TxSettled, b.invoices[2].TotalAmount, cur, g.o.Now.AddDate(0, 0, -1))
	case 2:
		b.invoices[0].PaymentDate = nil
		t = b.payments[0]
	}
	g.expect(12, "transaction", t.ID, -t.Amount, cur)
}

// Rule 13: a paid invoice was paid 5.00 short.
func plantPaymentMismatch(g *gen, b *subBundle, _ int) {
	b.payments[0].Amount -= 500
	g.expect(13, "invoice", b.invoices[0].ID, 500, b.invoices[0].CurrencyCode)
}

// Rule 14: a payment in another currency than its invoice, a subscription in
// a currency its plan does not sell in, or a customer whose currency changed
// after invoicing (a finding for each of its invoices).
func plantCurrencyMismatch(g *gen, b *subBundle, n int) {
	switch n % 3 {
	case 0:
		p := b.payments[0]
		p.CurrencyCode = otherCurrency(p.CurrencyCode)
		g.expect(14, "transaction", p.ID, 0, p.CurrencyCode)
	case 1:
		b.sub.CurrencyCode = "XTS"
		for _, c := range currencies {
			if !strings.Contains(b.plan.ActiveCurrencies, c) {
				b.sub.CurrencyCode = c
				break
			}
		}
		g.expect(14, "subscription", b.sub.ID, 0, b.sub.CurrencyCode)
	case 2:
		b.cust.CurrencyCode = otherCurrency(b.cust.CurrencyCode)
		for _, inv := range b.invoices {
			g.expect(14, "invoice", inv.ID, 0, inv.CurrencyCode)
		}
	}
}

func otherCurrency(cur string) string {
	i := slices.Index(currencies, cur)
	return currencies[(i+1)%len(currencies)]
}

// dropRemoved takes the records planted cases removed out of their lists.
func (g *gen) dropRemoved() {
	gone := func(p any) bool { return g.dropped[p] }
	g.d.Invoices = slices.DeleteFunc(g.d.Invoices, func(x *Invoice) bool { return gone(x) })
	g.d.Transactions = slices.DeleteFunc(g.d.Transactions, func(x *Transaction) bool { return gone(x) })
	g.d.Charges = slices.DeleteFunc(g.d.Charges, func(x *SubscriptionCharge) bool { return gone(x) })
}
