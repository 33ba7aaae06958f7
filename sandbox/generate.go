package sandbox

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Options says what data a sandbox holds. The same options but Now give
// the same records, IDs, counts and amounts; Now only moves every date by
// the same amount (see epoch).
type Options struct {
	Seed      uint64    // seed of every random choice
	Customers int       // clean customers (planted ones come on top)
	Planted   int       // planted cases for each of rules 1–14; 0 gives clean data
	Months    int       // months of billing history; 0 means 6
	Now       time.Time // the service's clock; zero means time.Now()
}

// Currencies the sandbox bills in.
var currencies = []string{"USD", "EUR", "GBP", "DKK", "SEK"}

// Dataset is the whole content of the service, held as typed records in
// list order, and the findings the planted cases must produce.
type Dataset struct {
	Now            time.Time
	Customers      []*Customer
	Contacts       []*Contact
	PaymentMethods []*PaymentMethod
	Discounts      []*Discount
	Subscriptions  []*Subscription
	Charges        []*SubscriptionCharge
	Invoices       []*Invoice
	Plans          []*ProductPlan
	Transactions   []*Transaction
	Units          []*UnitOfMeasure
	BusinessUnits  []*BusinessUnit
	TaxRules       []*TaxRule
	Expected       []Finding // findings of the planted cases
}

// gen carries the state of one generation.
type gen struct {
	o        Options
	rng      *rand.Rand
	d        *Dataset
	byCur    map[string][]*ProductPlan // plans selling in a currency
	price    map[string]Money          // ppcID/currency -> unit price
	invoiceN int
	dropped  map[any]bool // records a planted case removed
}

// Generate builds the dataset that o describes.
func Generate(o Options) *Dataset {
	if o.Months <= 0 {
		o.Months = 6
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	now := o.Now.UTC().Truncate(time.Second)
	o.Now = epoch
	g := &gen{
		o:       o,
		rng:     rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)),
		d:       &Dataset{Now: o.Now},
		byCur:   map[string][]*ProductPlan{},
		price:   map[string]Money{},
		dropped: map[any]bool{},
	}
	g.referenceData()
	g.plans()
	for _, rule := range g.customerOrder() {
		g.customer(rule)
	}
	g.dropRemoved()
	g.d.shift(now.Sub(epoch))
	return g.d
}

// customerOrder lists one entry per customer: 0 for a clean one, or the rule
// number (1–14) a planted one is made for, shuffled so that planted cases
// are spread over the pages.
func (g *gen) customerOrder() []int {
	order := make([]int, g.o.Customers, g.o.Customers+14*g.o.Planted)
	for rule := 1; rule <= 14; rule++ {
		for range g.o.Planted {
			order = append(order, rule)
		}
	}
	g.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

func (g *gen) id() string { return newGUID(g.rng) }

// newGUID returns a random GUID shaped as a version 4 UUID, drawn from rng.
func newGUID(rng *rand.Rand) string {
	a, b := rng.Uint64(), rng.Uint64()
	a = a&^0xf000 | 0x4000
	b = b&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

func (g *gen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *gen) referenceData() {
	for _, n := range []string{"Piece", "Hour", "Month", "Gigabyte", "Seat"} {
		g.d.Units = append(g.d.Units, &UnitOfMeasure{ID: g.id(), Name: n})
	}
	for i, n := range []string{"Nordics", "Europe", "Americas"} {
		g.d.BusinessUnits = append(g.d.BusinessUnits, &BusinessUnit{ID: g.id(), Name: n, CurrencyCode: []string{"DKK", "EUR", "USD"}[i]})
	}
	for i, n := range []string{"Exempt", "Reduced", "Standard", "Nordic standard"} {
		g.d.TaxRules = append(g.d.TaxRules, &TaxRule{ID: g.id(), Name: n, Rate: []float64{0, 0.05, 0.2, 0.25}[i]})
	}
}

// plans makes one plan per 25 customers (at least one per currency); each
// sells in its own currency and up to two more, with a pricing for every
// charge in every active currency.
func (g *gen) plans() {
	n := max(len(currencies), g.o.Customers/25)
	for i := range n {
		cur := currencies[i%len(currencies)]
		active := []string{cur}
		for _, c := range currencies {
			if c != cur && g.chance(0.3) {
				active = append(active, c)
			}
		}
		slices.Sort(active)
		p := &ProductPlan{ID: g.id(), FullName: fmt.Sprintf("Plan %d", i+1), CurrencyCode: cur, ActiveCurrencies: strings.Join(active, ",")}
		for j := range 2 + g.rng.IntN(3) {
			g.planCharge(p, i, j, active)
		}
		for _, c := range active {
			g.byCur[c] = append(g.byCur[c], p)
		}
		g.d.Plans = append(g.d.Plans, p)
	}
}

func (g *gen) planCharge(p *ProductPlan, plan, j int, active []string) {
	name := g.pick([]string{"Seat", "Storage", "Support", "Licence", "Add-on", "Training"})
	c := &ProductPlanCharge{ID: g.id(), FullName: name, InvoiceText: fmt.Sprintf("%s (plan %d)", name, plan+1), SKU: fmt.Sprintf("SKU-%04d-%d", plan+1, j+1)}
	if g.chance(0.4) {
		c.DefaultAmount = 1
	}
	p.ProductPlanCharges = append(p.ProductPlanCharges, c)
	for _, cur := range active {
		pr := &Pricing{ProductPlanChargeID: c.ID, CurrencyCode: cur, UnitPrice: Money(500 + 25*g.rng.IntN(780))}
		p.ProductPlanChargePricings = append(p.ProductPlanChargePricings, pr)
		g.price[c.ID+"/"+cur] = pr.UnitPrice
	}
}
