package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/billsnap/billsnap/sandbox"
)

// Of a day's changes, a tenth are inserts and a tenth deletes; the rest
// are updates.
const (
	insertShare = 0.1
	deleteShare = 0.1
)

// undeletable are the lists whose records other lists hang on (a
// customer's contacts, invoices and subscriptions; a subscription's
// charges; a plan's subscriptions): a back office closes such a record
// rather than deleting it, so churn never deletes one.
var undeletable = map[string]bool{"Customers": true, "Subscriptions": true, "ProductPlans": true}

// churn changes a sandbox between two days' exports as a back office
// would, through its Change, Insert and Remove, each choice drawn from
// its own random source: the same seed on sandboxes of the same options
// makes the same changes.
type churn struct {
	sb   *sandbox.Sandbox
	rate float64 // the share of the lists' records changed a day
	rng  *rand.Rand
	seq  int // numbers each new value, so that it differs from the last
	done churnCounts
}

// churnCounts are the changes made so far.
type churnCounts struct{ updates, inserts, deletes int }

func newChurn(sb *sandbox.Sandbox, rate float64, seed uint64) *churn {
	return &churn{sb: sb, rate: rate, rng: rand.New(rand.NewPCG(seed, 60))}
}

// day makes rate × (the records of every list) changes, rounded: inserts
// and deletes a tenth each, rounded, the rest updates. Each change picks
// a record (for an insert, a list) uniformly among those of every list,
// so a list changes in proportion to its size; a delete never takes a
// list's last record, nor one of an undeletable list. The deletes come
// first and the inserts last, so that each of them is seen by the next
// export; an update may take a record updated already that day, and may
// set a value the record had before.
func (c *churn) day() error {
	if c.rate <= 0 {
		return nil
	}
	ids, total, err := c.listIDs()
	if err != nil {
		return err
	}
	n := int(math.Round(c.rate * float64(total)))
	ins, del := int(math.Round(float64(n)*insertShare)), int(math.Round(float64(n)*deleteShare))
	for range del {
		name, i := c.pick(ids, func(name string) bool { return !undeletable[name] && len(ids[name]) > 1 })
		if name == "" {
			break
		}
		if err := c.sb.Remove(name, ids[name][i]); err != nil {
			return err
		}
		last := len(ids[name]) - 1
		ids[name][i] = ids[name][last]
		ids[name] = ids[name][:last]
		c.done.deletes++
	}
	for range n - ins - del {
		name, i := c.pick(ids, func(string) bool { return true })
		if err := c.sb.Change(name, ids[name][i], c.update); err != nil {
			return err
		}
		c.done.updates++
	}
	for range ins {
		name, _ := c.pick(ids, func(string) bool { return true })
		id, err := c.sb.Insert(name)
		if err != nil {
			return err
		}
		ids[name] = append(ids[name], id)
		c.done.inserts++
	}
	return nil
}

// listIDs are the IDs of every list's records, and how many there are.
func (c *churn) listIDs() (map[string][]string, int, error) {
	ids, total := map[string][]string{}, 0
	for _, name := range sandbox.ListNames() {
		recs, err := c.sb.Served(name)
		if err != nil {
			return nil, 0, err
		}
		for _, r := range recs {
			ids[name] = append(ids[name], r.ID)
		}
		total += len(recs)
	}
	return ids, total, nil
}

// pick draws a record uniformly among those of the lists ok allows: its
// list's name and its place in ids; "" when ok allows no record.
func (c *churn) pick(ids map[string][]string, ok func(name string) bool) (string, int) {
	total := 0
	for _, name := range sandbox.ListNames() {
		if ok(name) {
			total += len(ids[name])
		}
	}
	if total == 0 {
		return "", 0
	}
	r := c.rng.IntN(total)
	for _, name := range sandbox.ListNames() {
		if !ok(name) {
			continue
		}
		if r < len(ids[name]) {
			return name, r
		}
		r -= len(ids[name])
	}
	panic("unreachable")
}

// update changes a field of rec as a back office would, always to
// another value than it has: a customer's
// e-mail or name, a payment method's state or expiry, an invoice's
// payment date, a transaction's status, a charge's quantity, a plan's name
// or one of its prices, and so on.
func (c *churn) update(rec any) {
	c.seq++
	coin := c.rng.IntN(2) == 0
	switch v := rec.(type) {
	case *sandbox.Customer:
		if coin {
			v.Email = fmt.Sprintf("accounts.%d@example.net", c.seq)
		} else {
			v.FullName = fmt.Sprintf("Renamed customer %d", c.seq)
		}
	case *sandbox.Contact:
		v.Email = fmt.Sprintf("contact.%d@example.net", c.seq)
	case *sandbox.PaymentMethod:
		if coin {
			v.Active = !v.Active
		} else {
			v.ExpiryDate = v.ExpiryDate.AddDate(1, 0, 0)
		}
	case *sandbox.Discount:
		v.EndDate = v.EndDate.AddDate(0, 1, 0)
	case *sandbox.Subscription:
		c.updateSubscription(v)
	case *sandbox.SubscriptionCharge:
		v.Amount++
	case *sandbox.ProductPlan:
		c.updatePlan(v, coin)
	case *sandbox.Invoice:
		c.updateInvoice(v)
	case *sandbox.Transaction:
		v.Status = map[string]string{sandbox.TxPending: sandbox.TxSettled, sandbox.TxSettled: sandbox.TxFailed}[v.Status]
		if v.Status == "" {
			v.Status = sandbox.TxPending
		}
	case *sandbox.UnitOfMeasure:
		v.Name = fmt.Sprintf("Renamed unit %d", c.seq)
	case *sandbox.BusinessUnit:
		v.Name = fmt.Sprintf("Renamed business unit %d", c.seq)
	case *sandbox.TaxRule:
		v.Rate = float64((int(math.Round(v.Rate*100))+1)%26) / 100
	default:
		panic(fmt.Sprintf("churn: no update for %T", rec))
	}
}

// updateSubscription pauses an active subscription or resumes a paused
// one; any other's billing cycle turns monthly or yearly.
func (c *churn) updateSubscription(v *sandbox.Subscription) {
	switch v.State {
	case sandbox.StateActivated:
		v.State = sandbox.StatePaused
	case sandbox.StatePaused:
		v.State = sandbox.StateActivated
	case sandbox.StateNotActivated, sandbox.StateCancelled:
		v.BillingCycle = map[string]string{"Monthly": "Yearly"}[v.BillingCycle]
		if v.BillingCycle == "" {
			v.BillingCycle = "Monthly"
		}
	}
}

// updatePlan renames the plan, or (coin) raises one of its prices by
// 1.00, which changes a row of product_plan_charge_pricings too.
func (c *churn) updatePlan(v *sandbox.ProductPlan, coin bool) {
	if coin && len(v.ProductPlanChargePricings) > 0 {
		v.ProductPlanChargePricings[c.rng.IntN(len(v.ProductPlanChargePricings))].UnitPrice += 100
		return
	}
	v.FullName = fmt.Sprintf("Renamed plan %d", c.seq)
}

// updateInvoice pays an unpaid invoice on its due date, or moves a paid
// one's payment a day later.
func (c *churn) updateInvoice(v *sandbox.Invoice) {
	paid := v.DueDate
	if v.PaymentDate != nil {
		paid = v.PaymentDate.AddDate(0, 0, 1)
	}
	v.PaymentDate = &paid
}
