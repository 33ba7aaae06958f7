package sandbox

import (
	"strconv"
	"time"
)

// invoice bills one month's charged charges with Amount above zero and
// settles it; it returns the invoice and its settled payment, either nil
// when there is none. open leaves the invoice unpaid (planted subscriptions
// keep their last invoice open).
func (g *gen) invoice(b *subBundle, row []*SubscriptionCharge, date time.Time, open bool) (*Invoice, *Transaction) {
	inv := &Invoice{ID: g.id(), CustomerID: b.cust.ID, SubscriptionID: b.sub.ID, InvoiceDate: date,
		DueDate: date.AddDate(0, 0, 14), CurrencyCode: b.sub.CurrencyCode}
	for j, ch := range row {
		if ch.Amount > 0 {
			inv.InvoiceLines = append(inv.InvoiceLines, g.line(ch, b.plan.ProductPlanCharges[j], b.sub.CurrencyCode))
		}
	}
	if len(inv.InvoiceLines) == 0 {
		return nil, nil
	}
	g.invoiceN++
	inv.InvoiceNumber = strconv.Itoa(1_000_000 + g.invoiceN)
	inv.TotalAmount = lineSum(inv)
	g.d.Invoices = append(g.d.Invoices, inv)
	if b.planted {
		return inv, g.settlePlainly(inv, open)
	}
	return inv, g.settle(inv)
}

func (g *gen) line(ch *SubscriptionCharge, ppc *ProductPlanCharge, cur string) *InvoiceLine {
	p := g.price[ppc.ID+"/"+cur]
	return &InvoiceLine{ID: g.id(), SubscriptionChargeID: ch.ID, ProductPlanChargeID: ppc.ID, Quantity: ch.Amount,
		UnitPrice: p, Amount: p * Money(ch.Amount), Text: ppc.InvoiceText}
}

// lineSum is the sum of an invoice's line amounts.
func lineSum(inv *Invoice) Money {
	var s Money
	for _, l := range inv.InvoiceLines {
		s += l.Amount
	}
	return s
}

// settle writes the transactions of an invoice and returns its settled
// payment. Most invoices are paid some days after their date with a settled
// payment of the total; now and then a failed attempt comes first, or the
// customer overpaid and got the difference refunded. An unpaid invoice may
// have a pending payment.
func (g *gen) settle(inv *Invoice) *Transaction {
	paidAt := inv.InvoiceDate.Add(time.Duration(24*(1+g.rng.IntN(9))+g.rng.IntN(24)) * time.Hour)
	if paidAt.After(g.o.Now) || g.chance(0.1) {
		if g.chance(0.3) {
			g.tx(inv.CustomerID, &inv.ID, TxPayment, TxPending, inv.TotalAmount, inv.CurrencyCode, g.o.Now.Add(-time.Hour))
		}
		return nil
	}
	inv.PaymentDate = &paidAt
	if g.chance(0.08) {
		g.tx(inv.CustomerID, &inv.ID, TxPayment, TxFailed, inv.TotalAmount, inv.CurrencyCode, paidAt.Add(-24*time.Hour))
	}
	if g.chance(0.05) {
		over := Money(100 * (1 + g.rng.IntN(50)))
		pay := g.tx(inv.CustomerID, &inv.ID, TxPayment, TxSettled, inv.TotalAmount+over, inv.CurrencyCode, paidAt)
		g.tx(inv.CustomerID, &inv.ID, TxRefund, TxSettled, over, inv.CurrencyCode, paidAt.Add(48*time.Hour))
		return pay
	}
	return g.tx(inv.CustomerID, &inv.ID, TxPayment, TxSettled, inv.TotalAmount, inv.CurrencyCode, paidAt)
}

// settlePlainly pays an invoice three days after its date with one settled
// payment of its total, unless open.
func (g *gen) settlePlainly(inv *Invoice, open bool) *Transaction {
	if open {
		return nil
	}
	paidAt := inv.InvoiceDate.Add(72 * time.Hour)
	inv.PaymentDate = &paidAt
	return g.tx(inv.CustomerID, &inv.ID, TxPayment, TxSettled, inv.TotalAmount, inv.CurrencyCode, paidAt)
}

// tx appends a transaction; invoiceID may be nil.
func (g *gen) tx(customerID string, invoiceID *string, typ, status string, amount Money, cur string, at time.Time) *Transaction {
	t := &Transaction{ID: g.id(), CustomerID: customerID, Type: typ, Status: status, Amount: amount, CurrencyCode: cur, TransactionDate: at}
	if invoiceID != nil {
		id := *invoiceID
		t.InvoiceID = &id
	}
	g.d.Transactions = append(g.d.Transactions, t)
	return t
}
