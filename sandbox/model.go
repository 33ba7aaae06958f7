package sandbox

import "time"

// The record types below are the service's view of its objects, as the
// spec (docs/service.md) and the assumed fields of docs/fields.md describe them.
// JSON names are PascalCase, identifiers are GUID strings, dates are ISO 8601
// UTC, money has two decimals. A few records carry a field that neither
// document names (Culture, BillingCycle): a client must keep such fields in
// its raw column.

// Customer is a billed party.
type Customer struct {
	ID           string
	FullName     string
	CompanyName  string
	CurrencyCode string
	Email        string
	Created      time.Time
	Culture      string
}

// Contact is a person at a customer.
type Contact struct {
	ID         string
	CustomerID string
	FullName   string
	Email      string
}

// PaymentMethod is a way a customer pays.
type PaymentMethod struct {
	ID         string
	CustomerID string
	Type       string
	Active     bool
	ExpiryDate time.Time
}

// Discount is a percentage off a subscription for a period.
type Discount struct {
	ID             string
	SubscriptionID string
	Percentage     float64
	StartDate      time.Time
	EndDate        time.Time
}

// Subscription states.
const (
	StateNotActivated = "NotActivated"
	StateActivated    = "Activated"
	StatePaused       = "Paused"
	StateCancelled    = "Cancelled"
)

// Subscription is a customer's subscription to a product plan.
type Subscription struct {
	ID            string
	CustomerID    string
	ProductPlanID string
	CurrencyCode  string
	State         string
	StartDate     time.Time
	BillingCycle  string
}

// Subscription charge statuses (docs/fields.md): 1 active, 7 charged.
const (
	StatusActive  = 1
	StatusCharged = 7
)

// SubscriptionCharge holds the quantity (Amount) of one product on one
// subscription for one billing period.
type SubscriptionCharge struct {
	ID                  string
	SubscriptionID      string
	ProductPlanChargeID string
	ReferenceID         string
	Amount              int64
	NextChargeDate      time.Time
	StateCode           int
	Status              int
}

// ProductPlan is a plan with its charges and their pricings. The nested
// lists are always held; they are sent only when the request expands them.
type ProductPlan struct {
	ID                        string
	FullName                  string
	CurrencyCode              string
	ActiveCurrencies          string
	ProductPlanCharges        []*ProductPlanCharge `json:",omitempty"`
	ProductPlanChargePricings []*Pricing           `json:",omitempty"`
}

// ProductPlanCharge is a product that can be sold.
type ProductPlanCharge struct {
	ID            string
	FullName      string
	InvoiceText   string
	DefaultAmount int64
	SKU           string
}

// Pricing is the unit price of a product plan charge in one currency. It has
// no ID of its own: its key is ProductPlanChargeID/CurrencyCode.
type Pricing struct {
	ProductPlanChargeID string
	CurrencyCode        string
	UnitPrice           Money
}

// Invoice is a bill with its lines. PaymentDate is null until paid.
type Invoice struct {
	ID             string
	InvoiceNumber  string
	CustomerID     string
	SubscriptionID string
	InvoiceDate    time.Time
	DueDate        time.Time
	CurrencyCode   string
	TotalAmount    Money
	PaymentDate    *time.Time
	InvoiceLines   []*InvoiceLine
}

// InvoiceLine is one charged product on an invoice.
type InvoiceLine struct {
	ID                   string
	SubscriptionChargeID string
	ProductPlanChargeID  string
	Quantity             int64
	UnitPrice            Money
	Amount               Money
	Text                 string
}

// Transaction types and statuses.
const (
	TxPayment = "Payment"
	TxRefund  = "Refund"
	TxSettled = "Settled"
	TxPending = "Pending"
	TxFailed  = "Failed"
)

// Transaction is a payment or refund; InvoiceID may be null.
type Transaction struct {
	ID              string
	CustomerID      string
	InvoiceID       *string
	Type            string
	Status          string
	Amount          Money
	CurrencyCode    string
	TransactionDate time.Time
}

// UnitOfMeasure is a unit products are sold in.
type UnitOfMeasure struct {
	ID   string
	Name string
}

// BusinessUnit is a selling entity.
type BusinessUnit struct {
	ID           string
	Name         string
	CurrencyCode string
}

// TaxRule is a named tax rate.
type TaxRule struct {
	ID   string
	Name string
	Rate float64
}
