package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/sandbox"
)

func TestWaiversActiveAndExpired(t *testing.T) {
	t.Parallel()
	fx, db := loadFixture(t, "11_paid_without_payment") // three invoices paid without a payment
	rules, err := Rules("")
	if err != nil {
		t.Fatal(err)
	}
	reconcile := func(waivers []findings.Waiver) *findings.Report {
		t.Helper()
		o := fx.options(rules)
		o.Waivers = waivers
		r, err := Run(context.Background(), source(db), o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r0 := reconcile(nil)
	paid := only(r0.Findings, "paid_without_payment")
	if len(paid) != 3 {
		t.Fatalf("the fixture's paid_without_payment findings: %+v", paid)
	}
	day := func(d int) findings.Date {
		return findings.Date{Time: r0.AsOf.UTC().Truncate(24*time.Hour).AddDate(0, 0, d)}
	}
	waivers := []findings.Waiver{
		{Rule: "paid_without_payment", EntityID: paid[0].EntityID, Reason: "paid in cash, booked by hand", Owner: "ann@finance", Expires: day(0)},
		{Rule: "paid_without_payment", EntityID: paid[1].EntityID, Reason: "old", Owner: "bob@finance", Expires: day(-1)},
	}
	r := reconcile(waivers)
	var waived []string
	for _, f := range r.Findings {
		if f.Waiver != nil {
			waived = append(waived, f.EntityID)
			if f.Waiver.Reason != "paid in cash, booked by hand" || f.Waiver.Owner != "ann@finance" {
				t.Errorf("waiver %+v", f.Waiver)
			}
		}
	}
	if !slices.Equal(waived, []string{paid[0].EntityID}) || len(r.ExpiredWaivers) != 1 || r.ExpiredWaivers[0].Owner != "bob@finance" {
		t.Fatalf("waived %v, expired %v", waived, r.ExpiredWaivers)
	}
	for _, tot := range r.Totals() {
		if tot.Rule.ID != "paid_without_payment" {
			continue
		}
		var open money.Amount
		for _, a := range tot.Amounts {
			open += a
		}
		if tot.Waived != 1 || tot.Count != 3 || open != paid[1].Amount+paid[2].Amount {
			t.Errorf("totals %+v: the waived finding's amount must not count", tot)
		}
	}
	if len(r.Material) == 0 || !strings.Contains(strings.Join(r.Material, "\n"), "paid_without_payment (critical): 2 unwaived findings") {
		t.Errorf("material %v", r.Material)
	}
}

// A finding that a waiver of the file and one made in the workspace both
// cover is listed once, under the waiver that lasts longer, with who made
// it when it is the workspace's.
func TestTwoWaiversOfOneFinding(t *testing.T) {
	t.Parallel()
	fx, db := loadFixture(t, "11_paid_without_payment")
	rules, err := Rules("")
	if err != nil {
		t.Fatal(err)
	}
	o := fx.options(rules)
	r0, err := Run(context.Background(), source(db), o)
	if err != nil {
		t.Fatal(err)
	}
	paid := only(r0.Findings, "paid_without_payment")
	day := func(d int) findings.Date {
		return findings.Date{Time: r0.AsOf.UTC().Truncate(24*time.Hour).AddDate(0, 0, d)}
	}
	id := paid[0].EntityID
	o.Waivers = []findings.Waiver{
		{Rule: "paid_without_payment", EntityID: id, Reason: "file", Owner: "ann", Expires: day(3)},
		{Rule: "paid_without_payment", EntityID: id, Reason: "workspace", Owner: "bob", Expires: day(9), ID: "W7", By: "carol"},
	}
	r, err := Run(context.Background(), source(db), o)
	if err != nil {
		t.Fatal(err)
	}
	got := only(r.Findings, "paid_without_payment")
	if len(got) != len(paid) {
		t.Fatalf("%d findings with two waivers of one, %d without", len(got), len(paid))
	}
	for _, f := range got {
		if f.EntityID == id && (f.Waiver == nil || f.Waiver.ID != "W7" || f.Waiver.By != "carol" || f.Waiver.Reason != "workspace") {
			t.Fatalf("the finding's waiver: %+v", f.Waiver)
		}
	}
}

// --period limits the invoice rules to invoices dated in the month and
// rule 1 to charges charged in it; the other rules are not limited. It
// reconciles the keyed snapshot, whose whole reconciliation it compares.
func TestPeriod(t *testing.T) {
	t.Parallel()
	e, all := keyedEnv(t)
	dated := map[string]time.Time{}
	for _, inv := range e.srv.Dataset().Invoices {
		dated[inv.ID] = inv.InvoiceDate
		for _, l := range inv.InvoiceLines {
			dated[l.ID] = inv.InvoiceDate
		}
	}
	for _, c := range e.srv.Dataset().Charges {
		dated[c.ID] = c.NextChargeDate
	}
	period := findings.MonthOf(dated[only(all.Findings, "invoice_total_mismatch")[0].EntityID], 0)
	limited := map[string]bool{"charge_not_invoiced": true, "zero_quantity_invoiced": true, "quantity_mismatch": true, "price_mismatch": true,
		"duplicate_invoicing": true, "invoice_total_mismatch": true, "paid_without_payment": true, "payment_amount_mismatch": true}
	var want []string
	for _, f := range all.Findings {
		if d := dated[f.EntityID]; !limited[f.Rule] || (!d.Before(period.Start) && d.Before(period.End())) {
			want = append(want, f.Rule+" "+f.EntityID)
		}
	}
	r := e.reconcile(Options{Period: period})
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Rule+" "+f.EntityID)
	}
	if !slices.Equal(got, want) || len(got) == len(all.Findings) || len(only(r.Findings, "invoice_total_mismatch")) == 0 {
		t.Errorf("period %s: %d findings of %d\ngot  %v\nwant %v", period, len(got), len(all.Findings), got, want)
	}
	if p, err := findings.ParsePeriod("2026-10"); err != nil || p.String() != "2026-10" || p.End().Format("2006-01-02") != "2026-11-01" {
		t.Errorf("ParsePeriod: %v %v", p, err)
	}
	if _, err := findings.ParsePeriod("October"); err == nil {
		t.Error("a bad period is accepted")
	}
}

func TestUserRulesAddAndReplace(t *testing.T) {
	t.Parallel()
	fx, db := loadFixture(t, "04_price_mismatch") // the shipped price_mismatch finds four lines
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "large.sql"), []byte("-- id: large_line\n-- severity: low\n-- title: Large line\n"+
		"SELECT 'invoice_line' AS entity, id AS entity_id, amount, 'EUR' AS currency, 'over 50' AS detail\n"+
		"FROM cur.invoice_lines WHERE amount > 50;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "price.sql"), []byte("-- id: price_mismatch\n-- severity: low\n"+
		"SELECT 'invoice_line' AS entity, id AS entity_id, 0 AS amount, 'XTS' AS currency, 'replaced' AS detail FROM cur.invoice_lines WHERE false\n"), 0o644)
	rules, err := Rules(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rules[0].ID != findings.IncompleteRule || rules[len(rules)-1].ID != "large_line" || len(rules) != 17 {
		t.Fatalf("rules: %d, first %s, last %s", len(rules), rules[0].ID, rules[len(rules)-1].ID)
	}
	r, err := Run(context.Background(), source(db), fx.options(rules))
	if err != nil {
		t.Fatal(err)
	}
	if len(only(r.Findings, "price_mismatch")) != 0 || len(only(r.Findings, "large_line")) != 1 {
		t.Errorf("price_mismatch %d (want 0, replaced), large_line %d (want 1)", len(only(r.Findings, "price_mismatch")), len(only(r.Findings, "large_line")))
	}
	for _, f := range only(r.Findings, "large_line") {
		if f.Severity != "low" || f.EntityID != "l3" || f.Amount != 9900 {
			t.Errorf("user finding %+v", f)
		}
	}
}

func TestBadUserRulesAreRefused(t *testing.T) {
	t.Parallel()
	fx, db := loadFixture(t, "00_clean")
	for name, body := range map[string]string{
		"no header":      "SELECT 1",
		"bad severity":   "-- id: x\n-- severity: urgent\nSELECT 1",
		"missing column": "-- id: x\n-- severity: low\nSELECT 'invoice' AS entity, id AS entity_id FROM cur.invoices",
		"twice a record": "-- id: x\n-- severity: low\nSELECT 'invoice' AS entity, 'same' AS entity_id, 0 AS amount, 'EUR' AS currency, '' AS detail FROM cur.invoices",
		"syntax":         "-- id: x\n-- severity: low\nSELEKT 1",
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "bad.sql"), []byte(body), 0o644)
		rules, err := Rules(dir)
		if err == nil {
			_, err = Run(context.Background(), source(db), fx.options(rules))
		}
		if err == nil || !strings.Contains(err.Error(), "bad.sql") && !strings.Contains(err.Error(), "rule x") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A rule's ID is printed as it is in every report, chat message and file
// name, so it is of a safe alphabet: anything else is refused, naming it.
func TestARulesIDIsOfASafeAlphabet(t *testing.T) {
	t.Parallel()
	const query = "\n-- severity: low\nSELECT 'invoice' AS entity, id AS entity_id, 0 AS amount, currency_code AS currency, '' AS detail FROM cur.invoices"
	if _, err := ParseRule("ok.sql", "-- id: My_rule_2"+query); err != nil {
		t.Fatalf("a good ID: %v", err)
	}
	for _, id := range []string{"x<b>[y](z)", "<!channel>", "a.b", "naïve", strings.Repeat("x", 65)} {
		if _, err := ParseRule("bad.sql", "-- id: "+id+query); err == nil || !strings.Contains(err.Error(), "-- id:") {
			t.Errorf("the ID %q: %v", id, err)
		}
	}
}

// An incomplete snapshot is reconciled, untrusted and material; one whose
// payments listed a record twice holds it once, so no rule counts a payment
// twice. The heavy tier adds a drifting TotalCount and invoices listed
// twice (TestEveryIncompleteSnapshotIsUntrusted).
func TestIncompleteSnapshotIsUntrustedAndMaterial(t *testing.T) {
	t.Parallel()
	incompleteIsUntrusted(t, "move=Transactions@1/0", "transactions")
}

// incompleteIsUntrusted exports a sandbox with faults, which leave table
// incomplete, and checks the reconciliation of the snapshot.
func incompleteIsUntrusted(t *testing.T, faults, table string) {
	e := newEnvFaults(t, sandbox.Options{Seed: 67, Customers: 60}, faults)
	sum := e.export()
	if _, err := e.run(Options{}); err != ErrNoSnapshot {
		t.Errorf("without a complete snapshot: %v", err)
	}
	r := e.reconcile(Options{SnapshotID: sum.ID})
	inc := only(r.Findings, findings.IncompleteRule)
	if !r.Untrusted || len(inc) != 1 || inc[0].EntityID != table || len(r.Material) == 0 || !strings.Contains(r.Material[0], "not trusted") {
		t.Errorf("untrusted %v, findings %+v, material %v", r.Untrusted, inc, r.Material)
	}
	if n := len(only(r.Findings, "payment_amount_mismatch")); n != 0 {
		t.Errorf("%d payment amount mismatches in clean data", n)
	}
}

// Each threshold judges the keyed snapshot's reconciliation, made with
// the configured (default) thresholds.
func TestMaterialityThresholds(t *testing.T) {
	t.Parallel()
	e, r := keyedEnv(t)
	for _, tc := range []struct {
		m    findings.Materiality
		want []string
	}{
		{findings.Materiality{}, nil},
		{findings.Materiality{Rules: map[string]findings.Threshold{"price_mismatch": {Amount: "1.00"}}}, []string{"price_mismatch (medium): "}},
		{findings.Materiality{Rules: map[string]findings.Threshold{"price_mismatch": {Amount: "100000.00"}}}, nil},
		{findings.Materiality{Rules: map[string]findings.Threshold{"price_mismatch": {Count: 3}}}, nil}, // the snapshot's two price_mismatch findings
		{findings.Materiality{Rules: map[string]findings.Threshold{"price_mismatch": {Count: 2}}}, []string{"price_mismatch (medium): 2 unwaived findings, threshold 2"}},
		{findings.Materiality{Severities: map[string]findings.Threshold{"medium": {Count: 1}}}, []string{"quantity_mismatch", "price_mismatch", "invoice_total_mismatch", "missing_product_charge", "payment_amount_mismatch"}},
	} {
		tc.m.Severities = cmpOr(tc.m.Severities, map[string]findings.Threshold{})
		material := r.Judge(tc.m)
		if len(material) != len(tc.want) {
			t.Errorf("%+v: material %v, want %v", tc.m, material, tc.want)
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(material[i], w) {
				t.Errorf("%+v: reason %q, want %q", tc.m, material[i], w)
			}
		}
	}
	if got := r.Material; !slices.Equal(got, r.Judge(findings.DefaultMateriality())) || len(got) == 0 {
		t.Errorf("a reconciliation's material reasons %v are not its judgement under the configured thresholds", got)
	}
	if _, err := e.run(Options{Materiality: findings.Materiality{Severities: map[string]findings.Threshold{}, Rules: map[string]findings.Threshold{"no_such_rule": {Count: 1}}}}); err == nil || !strings.Contains(err.Error(), "reconcile.materiality.rules.no_such_rule") {
		t.Errorf("unknown rule in materiality: %v", err)
	}
}

func cmpOr[M ~map[string]findings.Threshold](m, d M) M {
	if m == nil {
		return d
	}
	return m
}
