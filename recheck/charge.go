package recheck

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/findings"
)

// charge is a subscription charge's fields that the rules read, in forms
// that compare exactly: the amount as a reduced fraction, the date in UTC
// to the microsecond, the status as its digits ("" when absent or not a
// number).
type charge struct {
	ID, SubscriptionID, ProductPlanChargeID, ReferenceID string
	Amount                                               string
	NextChargeDate                                       time.Time
	Status                                               string
}

// statusActive is an active charge's Status.
const statusActive = "1"

// exact is a decimal text as a reduced fraction ("2.0000" and "2" are
// "2"); "" stays "".
func exact(s string) string {
	if s == "" {
		return ""
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	return r.RatString()
}

// decodeCharge reads a charge as the service sends it.
func decodeCharge(raw string) (charge, error) {
	var v struct {
		ID, SubscriptionID, ProductPlanChargeID, ReferenceID string
		Amount                                               json.Number
		NextChargeDate                                       string
		Status                                               json.Number
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return charge{}, fmt.Errorf("a subscription charge: %w", err)
	}
	c := charge{ID: strings.ToLower(v.ID), SubscriptionID: strings.ToLower(v.SubscriptionID), ProductPlanChargeID: strings.ToLower(v.ProductPlanChargeID),
		ReferenceID: strings.ToLower(v.ReferenceID), Amount: exact(v.Amount.String()), Status: v.Status.String()}
	if v.NextChargeDate != "" {
		t, err := time.Parse(time.RFC3339Nano, v.NextChargeDate)
		if err != nil {
			return charge{}, fmt.Errorf("subscription charge %s: NextChargeDate %q: %w", v.ID, v.NextChargeDate, err)
		}
		c.NextChargeDate = t.UTC().Truncate(time.Microsecond)
	}
	return c, nil
}

// sink keeps the charges of one subscription's walk.
type sink struct {
	charges []charge
	ids     extract.Counter
}

func (s *sink) Restart(int) error {
	s.charges = nil
	s.ids.Reset()
	return nil
}

func (s *sink) Page(p *extract.Page) error {
	for _, r := range p.Records {
		c, err := decodeCharge(r.Raw)
		if err != nil {
			return err
		}
		s.ids.Add(c.ID)
		s.charges = append(s.charges, c)
	}
	return nil
}

func (s *sink) End() (extract.Tally, error) { return s.ids.Tally(), nil }

// chargeColumns are a charge's columns in the snapshot, as scanCharge
// reads them.
const chargeColumns = `lower(id), lower(coalesce(subscription_id, '')), lower(coalesce(product_plan_charge_id, '')),
	lower(coalesce(reference_id, '')), coalesce(CAST(amount AS VARCHAR), ''), next_charge_date, coalesce(CAST(status AS VARCHAR), '')`

func scanCharge(row interface{ Scan(...any) error }) (charge, error) {
	var c charge
	var next sql.NullTime
	err := row.Scan(&c.ID, &c.SubscriptionID, &c.ProductPlanChargeID, &c.ReferenceID, &c.Amount, &next, &c.Status)
	c.Amount = exact(c.Amount)
	if next.Valid {
		c.NextChargeDate = next.Time.UTC().Truncate(time.Microsecond)
	}
	return c, err
}

// target is a finding with what the snapshot held of what it is about.
type target struct {
	f          findings.Finding
	sub        string   // the subscription whose charges tell
	then       *charge  // the charge (rules 1, 7, 10)
	ref        string   // the reference (rule 8)
	thenActive []string // the active charges that carried it (rule 8)
	ppc        string   // the product plan charge (rule 9)
}

// targetOf reads what snapshot snap held of finding f.
func targetOf(ctx context.Context, db *sql.DB, snap string, f findings.Finding) (target, error) {
	t := target{f: f}
	switch f.Rule {
	case ruleMultiple:
		t.ref = strings.ToLower(f.EntityID)
		rows, err := db.QueryContext(ctx, "SELECT "+chargeColumns+" FROM subscription_charges WHERE snapshot_id = ? AND lower(reference_id) = ? ORDER BY id", snap, t.ref)
		if err != nil {
			return t, err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanCharge(rows)
			if err != nil {
				return t, err
			}
			if c.Status == statusActive {
				t.thenActive = append(t.thenActive, c.ID)
				t.sub = cmpOr(t.sub, c.SubscriptionID)
			}
		}
		slices.Sort(t.thenActive)
		return t, rows.Err()
	case ruleMissing:
		sub, ppc, _ := strings.Cut(f.EntityID, "/")
		t.sub, t.ppc = strings.ToLower(sub), strings.ToLower(ppc)
		return t, nil
	}
	c, err := scanCharge(db.QueryRowContext(ctx, "SELECT "+chargeColumns+" FROM subscription_charges WHERE snapshot_id = ? AND id = ?", snap, f.EntityID))
	if err != nil {
		return t, fmt.Errorf("charge %s of finding %s in snapshot %s: %w", f.EntityID, f.Rule, snap, err)
	}
	t.then, t.sub = &c, c.SubscriptionID
	return t, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// classify says whether t's finding holds against the charges now.
func (t target) classify(now map[string][]charge) (string, string) {
	cs := now[t.sub]
	switch t.f.Rule {
	case ruleMultiple:
		return t.classifyReference(cs)
	case ruleMissing:
		for _, c := range cs {
			if c.ProductPlanChargeID == t.ppc && c.Status == statusActive {
				return Changed, fmt.Sprintf("subscription %s now has an active charge %s of product plan charge %s", t.sub, c.ID, t.ppc)
			}
		}
		return Confirmed, ""
	}
	i := slices.IndexFunc(cs, func(c charge) bool { return c.ID == t.then.ID })
	if i < 0 {
		return Gone, fmt.Sprintf("charge %s is no longer among subscription %s's charges", t.then.ID, t.sub)
	}
	if diffs := t.differences(cs[i]); len(diffs) > 0 {
		return Changed, strings.Join(diffs, "; ")
	}
	return Confirmed, ""
}

// classifyReference says whether a reference still has more than one
// active charge, the same ones.
func (t target) classifyReference(cs []charge) (string, string) {
	var active []string
	carried := false
	for _, c := range cs {
		if c.ReferenceID == t.ref {
			carried = true
			if c.Status == statusActive {
				active = append(active, c.ID)
			}
		}
	}
	slices.Sort(active)
	switch {
	case !carried:
		return Gone, fmt.Sprintf("no charge of subscription %s carries reference %s", t.sub, t.ref)
	case slices.Equal(active, t.thenActive):
		return Confirmed, ""
	}
	return Changed, fmt.Sprintf("active charges carrying reference %s: %s then, %s now", t.ref, listOr(t.thenActive), listOr(active))
}

func listOr(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// readFields are the fields of a charge each rule reads.
var readFields = map[string][]string{
	ruleNotInvoiced: {"Status", "Amount", "SubscriptionID", "ProductPlanChargeID"},
	ruleMissedRun:   {"Status", "Amount", "NextChargeDate", "SubscriptionID", "ProductPlanChargeID"},
	ruleOrphan:      {"SubscriptionID", "ProductPlanChargeID"},
}

// differences are the fields t's rule reads whose value now differs from
// the snapshot's, as "Field then → now".
func (t target) differences(now charge) []string {
	then := *t.then
	values := func(c charge) map[string]string {
		d := ""
		if !c.NextChargeDate.IsZero() {
			d = c.NextChargeDate.Format(time.RFC3339Nano)
		}
		return map[string]string{"Status": c.Status, "Amount": c.Amount, "NextChargeDate": d, "SubscriptionID": c.SubscriptionID,
			"ProductPlanChargeID": c.ProductPlanChargeID, "ReferenceID": c.ReferenceID}
	}
	a, b := values(then), values(now)
	var out []string
	for _, f := range append(slices.Clone(readFields[t.f.Rule]), "ReferenceID") {
		if a[f] != b[f] {
			out = append(out, fmt.Sprintf("%s %s → %s", f, orNone(a[f]), orNone(b[f])))
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
