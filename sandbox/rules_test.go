package sandbox

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The test computes rules 1–14 of reconciliation-rules.md directly over a
// generated dataset, independently of how the cases were planted, and
// checks that the answer key says exactly the same.

type ruleIndex struct {
	d        *Dataset
	subs     map[string]*Subscription
	custs    map[string]*Customer
	plans    map[string]*ProductPlan
	ppcs     map[string]*ProductPlanCharge
	price    map[string]Money
	charges  map[string]*SubscriptionCharge
	invoices map[string]*Invoice
	lineInv  map[*InvoiceLine]*Invoice
	named    map[string]int // charge ID -> lines naming it
	found    map[string][]KeyFinding
}

func index(d *Dataset) *ruleIndex {
	x := &ruleIndex{d: d, subs: map[string]*Subscription{}, custs: map[string]*Customer{}, plans: map[string]*ProductPlan{},
		ppcs: map[string]*ProductPlanCharge{}, price: map[string]Money{}, charges: map[string]*SubscriptionCharge{},
		invoices: map[string]*Invoice{}, lineInv: map[*InvoiceLine]*Invoice{}, named: map[string]int{}, found: map[string][]KeyFinding{}}
	for _, s := range d.Subscriptions {
		x.subs[s.ID] = s
	}
	for _, c := range d.Customers {
		x.custs[c.ID] = c
	}
	for _, p := range d.Plans {
		x.plans[p.ID] = p
		for _, c := range p.ProductPlanCharges {
			x.ppcs[c.ID] = c
		}
		for _, pr := range p.ProductPlanChargePricings {
			x.price[pr.ProductPlanChargeID+"/"+pr.CurrencyCode] = pr.UnitPrice
		}
	}
	for _, c := range d.Charges {
		x.charges[c.ID] = c
	}
	for _, inv := range d.Invoices {
		x.invoices[inv.ID] = inv
		for _, l := range inv.InvoiceLines {
			x.lineInv[l] = inv
			x.named[l.SubscriptionChargeID]++
		}
	}
	return x
}

func (x *ruleIndex) add(rule int, entity, id string, amount Money, cur string) {
	x.found[ruleIDs[rule]] = append(x.found[ruleIDs[rule]], KeyFinding{Entity: entity, EntityID: id, Amount: amount.String(), Currency: cur})
}

func (x *ruleIndex) subCur(subID string) string {
	if s := x.subs[subID]; s != nil {
		return s.CurrencyCode
	}
	return ""
}

func moneyDiffers(a, b Money) bool { return a != b } // cents: the 0.005 tolerance is exact equality

func (x *ruleIndex) chargeRules(asOf time.Time) {
	activeByRef := map[string][]*SubscriptionCharge{}
	for _, c := range x.d.Charges {
		cur := x.subCur(c.SubscriptionID)
		if c.Status == StatusCharged && c.Amount > 0 && x.named[c.ID] == 0 {
			x.add(1, "subscription_charge", c.ID, Money(c.Amount)*x.price[c.ProductPlanChargeID+"/"+cur], cur)
		}
		if c.Status == StatusActive {
			activeByRef[c.ReferenceID] = append(activeByRef[c.ReferenceID], c)
			if s := x.subs[c.SubscriptionID]; s != nil && c.Amount > 0 && s.State == StateActivated && c.NextChargeDate.Before(asOf.Add(-48*time.Hour)) {
				x.add(7, "subscription_charge", c.ID, Money(c.Amount)*x.price[c.ProductPlanChargeID+"/"+cur], cur)
			}
		}
		if x.subs[c.SubscriptionID] == nil || x.ppcs[c.ProductPlanChargeID] == nil {
			x.add(10, "subscription_charge", c.ID, 0, cur)
		}
	}
	for ref, cs := range activeByRef {
		if len(cs) > 1 {
			x.add(8, "reference", ref, 0, x.subCur(cs[0].SubscriptionID))
		}
	}
	x.missingProducts()
}

func (x *ruleIndex) missingProducts() {
	has := map[string]bool{}
	for _, c := range x.d.Charges {
		if c.Status == StatusActive {
			has[c.SubscriptionID+"/"+c.ProductPlanChargeID] = true
		}
	}
	for _, s := range x.d.Subscriptions {
		p := x.plans[s.ProductPlanID]
		if s.State != StateActivated || p == nil {
			continue
		}
		for _, ppc := range p.ProductPlanCharges {
			if !has[s.ID+"/"+ppc.ID] {
				x.add(9, "subscription_product", s.ID+"/"+ppc.ID, Money(ppc.DefaultAmount)*x.price[ppc.ID+"/"+s.CurrencyCode], s.CurrencyCode)
			}
		}
	}
}

func (x *ruleIndex) lineRules() {
	byCharge := map[string][]*InvoiceLine{}
	for _, inv := range x.d.Invoices {
		for _, l := range inv.InvoiceLines {
			byCharge[l.SubscriptionChargeID] = append(byCharge[l.SubscriptionChargeID], l)
			ch := x.charges[l.SubscriptionChargeID]
			if (ch != nil && ch.Amount == 0) || (l.Quantity == 0 && l.Amount != 0) {
				x.add(2, "invoice_line", l.ID, -l.Amount, inv.CurrencyCode)
			}
			if ch != nil && ch.Amount > 0 && l.Quantity != ch.Amount {
				x.add(3, "invoice_line", l.ID, Money(ch.Amount-l.Quantity)*l.UnitPrice, inv.CurrencyCode)
			}
			if p, ok := x.price[l.ProductPlanChargeID+"/"+inv.CurrencyCode]; ok && moneyDiffers(p, l.UnitPrice) {
				x.add(4, "invoice_line", l.ID, (p-l.UnitPrice)*Money(l.Quantity), inv.CurrencyCode)
			}
			if ch == nil {
				x.add(10, "invoice_line", l.ID, l.Amount, inv.CurrencyCode)
			}
		}
	}
	for _, ls := range byCharge {
		slices.SortFunc(ls, func(a, b *InvoiceLine) int {
			return cmp.Or(x.lineInv[a].InvoiceDate.Compare(x.lineInv[b].InvoiceDate), strings.Compare(a.ID, b.ID))
		})
		for _, l := range ls[1:] {
			x.add(5, "invoice_line", l.ID, -l.Amount, x.lineInv[l].CurrencyCode)
		}
	}
}

func (x *ruleIndex) invoiceRules() {
	paid, refunded, payments := map[string]Money{}, map[string]Money{}, map[string]int{}
	for _, t := range x.d.Transactions {
		if t.Status != TxSettled || t.InvoiceID == nil {
			continue
		}
		if t.Type == TxPayment {
			paid[*t.InvoiceID] += t.Amount
			payments[*t.InvoiceID]++
		} else if t.Type == TxRefund {
			refunded[*t.InvoiceID] += t.Amount
		}
	}
	for _, inv := range x.d.Invoices {
		if sum := lineSum(inv); moneyDiffers(sum, inv.TotalAmount) {
			x.add(6, "invoice", inv.ID, sum-inv.TotalAmount, inv.CurrencyCode)
		}
		if inv.PaymentDate != nil && payments[inv.ID] == 0 {
			x.add(11, "invoice", inv.ID, inv.TotalAmount, inv.CurrencyCode)
		}
		if net := paid[inv.ID] - refunded[inv.ID]; inv.PaymentDate != nil && payments[inv.ID] > 0 && moneyDiffers(net, inv.TotalAmount) {
			x.add(13, "invoice", inv.ID, inv.TotalAmount-net, inv.CurrencyCode)
		}
		if c := x.custs[inv.CustomerID]; c == nil {
			x.add(10, "invoice", inv.ID, 0, inv.CurrencyCode)
		} else if c.CurrencyCode != inv.CurrencyCode {
			x.add(14, "invoice", inv.ID, 0, inv.CurrencyCode)
		}
	}
}

func (x *ruleIndex) transactionRules() {
	for _, t := range x.d.Transactions {
		var inv *Invoice
		if t.InvoiceID != nil {
			inv = x.invoices[*t.InvoiceID]
		}
		if t.InvoiceID != nil && inv == nil {
			x.add(10, "transaction", t.ID, t.Amount, t.CurrencyCode)
		}
		if t.Type == TxPayment && t.Status == TxSettled && (t.InvoiceID == nil || (inv != nil && inv.PaymentDate == nil)) {
			x.add(12, "transaction", t.ID, -t.Amount, t.CurrencyCode)
		}
		if inv != nil && inv.CurrencyCode != t.CurrencyCode {
			x.add(14, "transaction", t.ID, 0, t.CurrencyCode)
		}
	}
	for _, s := range x.d.Subscriptions {
		p := x.plans[s.ProductPlanID]
		if x.custs[s.CustomerID] == nil || p == nil {
			x.add(10, "subscription", s.ID, 0, s.CurrencyCode)
		}
		if p != nil && !containsCode(p.ActiveCurrencies, s.CurrencyCode) {
			x.add(14, "subscription", s.ID, 0, s.CurrencyCode)
		}
	}
}

// computeRules returns the findings of rules 1–14 over d, as-of d.Now.
func computeRules(d *Dataset) map[string][]KeyFinding {
	x := index(d)
	x.chargeRules(d.Now)
	x.lineRules()
	x.invoiceRules()
	x.transactionRules()
	return x.found
}

func sortedFindings(fs []KeyFinding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s %s %s %s", f.Entity, f.EntityID, f.Amount, f.Currency)
	}
	slices.Sort(out)
	return out
}

func TestAnswerKeyEqualsRulesComputedInGo(t *testing.T) {
	for seed := uint64(1); seed <= seeds(24); seed++ {
		planted := 1 + int(seed%6)
		sb := New(Config{Data: Options{Seed: seed, Customers: 40 + int(seed)*7, Planted: planted}})
		key, got := sb.AnswerKey(), computeRules(sb.Dataset())
		for n := 1; n <= 14; n++ {
			rule := ruleIDs[n]
			want := sortedFindings(key.Rules[rule])
			if len(want) < planted {
				t.Errorf("seed %d: rule %s: key has %d findings, want at least %d planted", seed, rule, len(want), planted)
			}
			if g := sortedFindings(got[rule]); !slices.Equal(g, want) {
				t.Errorf("seed %d: rule %s:\ncomputed %q\nkey      %q", seed, rule, g, want)
			}
		}
	}
}

func TestCleanDataHasNoFinding(t *testing.T) {
	for seed := uint64(100); seed < 100+seeds(12); seed++ {
		sb := New(Config{Data: Options{Seed: seed, Customers: 300}})
		for rule, fs := range computeRules(sb.Dataset()) {
			t.Errorf("seed %d: clean data gives %d findings of %s, first %+v", seed, len(fs), rule, fs[0])
		}
	}
}

// seeds is n, or 2 under -short: the race step (go test -race -short)
// runs the data's tests for the sandbox's goroutines, whose code every
// seed runs the same; the fast tier runs all n.
func seeds(n uint64) uint64 {
	if testing.Short() {
		return min(n, 2)
	}
	return n
}
