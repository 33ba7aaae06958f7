package reports

import "github.com/billsnap/billsnap/findings"

// fixtureRules are the rule catalogue's rules as a reconciliation's
// report carries them, in the catalogue's order, with what a report
// shows of a rule (its ID, severity, title and description): the
// reports' tests render a report without the engine that runs the
// rules.
var fixtureRules = []findings.Rule{
	{ID: "snapshot_incomplete", Severity: "critical", Title: "Snapshot incomplete",
		Description: "A collection whose distinct IDs differ from its TotalCount, that had an ID twice across pages, or whose walk failed. When it fires, the other rules are not trusted. Amount: 0."},
	{ID: "charge_not_invoiced", Severity: "high", Title: "Charge not invoiced",
		Description: "A charged subscription charge (Status 7) with Amount above zero that no invoice line names. Amount: Amount × the price of its product in the subscription's currency. With a period, charges charged in that month."},
	{ID: "zero_quantity_invoiced", Severity: "high", Title: "Zero quantity invoiced",
		Description: "An invoice line whose charge has Amount 0, or whose Quantity is 0 while its Amount is not. Amount: minus the line's Amount."},
	{ID: "quantity_mismatch", Severity: "medium", Title: "Quantity mismatch",
		Description: "An invoice line whose charge has Amount above zero and whose Quantity differs from it. Amount: (charge Amount − Quantity) × line UnitPrice."},
	{ID: "price_mismatch", Severity: "medium", Title: "Price mismatch",
		Description: "An invoice line whose UnitPrice differs from the price of its product in the invoice's currency. Amount: (price − UnitPrice) × Quantity."},
	{ID: "duplicate_invoicing", Severity: "high", Title: "Duplicate invoicing",
		Description: "An invoice line naming a subscription charge that an earlier line (older InvoiceDate, then smaller line ID) already names; the first line is not a finding. Amount: minus the line's Amount."},
	{ID: "invoice_total_mismatch", Severity: "medium", Title: "Invoice total mismatch",
		Description: "An invoice whose TotalAmount differs from the sum of its lines' Amount. Amount: sum of lines − TotalAmount."},
	{ID: "missed_billing_run", Severity: "critical", Title: "Missed billing run",
		Description: "An active charge (Status 1) with Amount above zero on an Activated subscription whose NextChargeDate is older than as-of minus the grace period. Amount: Amount × the price of its product in the subscription's currency."},
	{ID: "multiple_active_charges", Severity: "high", Title: "Multiple active charges",
		Description: "A ReferenceID that more than one active charge (Status 1) carries. Amount: 0."},
	{ID: "missing_product_charge", Severity: "medium", Title: "Missing product charge",
		Description: "A product plan charge of an Activated subscription's plan for which the subscription has no active charge. Entity ID: SubscriptionID/ProductPlanChargeID. Amount: DefaultAmount × the price in the subscription's currency."},
	{ID: "orphan_reference", Severity: "high", Title: "Orphan reference",
		Description: "A record whose reference names no record of the snapshot (SubscriptionCharge.SubscriptionID and ProductPlanChargeID, Subscription.CustomerID and ProductPlanID, Invoice.CustomerID, InvoiceLine.SubscriptionChargeID, Transaction.InvoiceID when not null); one finding per record, the detail names the fields. Amount: 0, or the line's or transaction's Amount."},
	{ID: "paid_without_payment", Severity: "critical", Title: "Paid without payment",
		Description: "An invoice with a PaymentDate that no settled payment names. Amount: TotalAmount."},
	{ID: "payment_without_invoice", Severity: "high", Title: "Payment without invoice",
		Description: "A settled payment whose InvoiceID is null, or names an invoice with no PaymentDate (an InvoiceID naming no invoice is orphan_reference's). Amount: minus the payment's Amount."},
	{ID: "payment_amount_mismatch", Severity: "medium", Title: "Payment amount mismatch",
		Description: "An invoice with a PaymentDate and at least one settled payment, where settled payments minus settled refunds differ from TotalAmount. Amount: TotalAmount − (payments − refunds)."},
	{ID: "currency_mismatch", Severity: "high", Title: "Currency mismatch",
		Description: "An invoice in another currency than its customer's; a transaction in another currency than its invoice's; a subscription in a currency its plan does not list in ActiveCurrencies. Only records that both exist are compared. Amount: 0."},
	{ID: "paid_invoice_changed", Severity: "critical", Title: "Paid invoice changed",
		Description: "An invoice that had a PaymentDate in the previous complete snapshot and whose TotalAmount, line count or line Amount sum differs now, or that is gone. Amount: TotalAmount now − before (0 now when gone)."},
}
