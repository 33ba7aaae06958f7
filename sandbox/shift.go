package sandbox

import "time"

// epoch is the clock every dataset is generated at. Generate then moves
// every date by Now − epoch, so that the same seed and size give the same
// records, IDs, counts and amounts whatever Now is, with every date the
// same distance from Now.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// shift moves every date of the dataset by the same duration.
func (d *Dataset) shift(by time.Duration) {
	d.Now = d.Now.Add(by)
	for _, c := range d.Customers {
		c.Created = c.Created.Add(by)
	}
	for _, p := range d.PaymentMethods {
		p.ExpiryDate = p.ExpiryDate.Add(by)
	}
	for _, x := range d.Discounts {
		x.StartDate, x.EndDate = x.StartDate.Add(by), x.EndDate.Add(by)
	}
	for _, s := range d.Subscriptions {
		s.StartDate = s.StartDate.Add(by)
	}
	for _, c := range d.Charges {
		c.NextChargeDate = c.NextChargeDate.Add(by)
	}
	for _, inv := range d.Invoices {
		inv.InvoiceDate, inv.DueDate = inv.InvoiceDate.Add(by), inv.DueDate.Add(by)
		if inv.PaymentDate != nil {
			paid := inv.PaymentDate.Add(by) // a copy: records may share a date
			inv.PaymentDate = &paid
		}
	}
	for _, t := range d.Transactions {
		t.TransactionDate = t.TransactionDate.Add(by)
	}
}
