package reconcile

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// variantTypesChangeNoFinding checks, for each seed, that fields sent in
// other JSON types, each read without loss, change no finding: IDs,
// amounts and currencies equal the clean run's (heavy tier; the fast tier
// has snapshot's TestVariantTypesLandAsTheCleanRun: the same columns).
func variantTypesChangeNoFinding(t *testing.T, seeds ...uint64) {
	for _, seed := range seeds {
		o := sandbox.Options{Seed: seed, Customers: 80, Planted: 2, Now: fixedNow}
		clean, varied := twoSnapshots(t, o, ""), twoSnapshots(t, o, "variants=0.5")
		rc, rv := clean.reconcile(Options{}), varied.reconcile(Options{})
		if got, want := findingKeys(rv), findingKeys(rc); !slices.Equal(got, want) {
			t.Errorf("seed %d: found, not in the clean run: %v\nin the clean run, not found: %v", seed, minus(got, want), minus(want, got))
		}
		if len(rv.Unjudged) != 0 || len(rv.Unguarded) != 0 {
			t.Errorf("seed %d: nothing arrived untyped, yet %v, %v", seed, rv.Unjudged, rv.Unguarded)
		}
	}
}

// untypedValuesRaiseNoFinding checks the seeds and returns, by rule, the
// findings held back and the clean run's findings said not judged.
func untypedValuesRaiseNoFinding(t *testing.T, seeds ...uint64) map[string]int {
	exercised := map[string]int{}
	for _, seed := range seeds {
		untypedSeed(t, seed, exercised)
	}
	return exercised
}

// untypedSeed checks one seed, adds to exercised, and returns the
// untyped snapshots' env.
func untypedSeed(t *testing.T, seed uint64, exercised map[string]int) *env {
	o := sandbox.Options{Seed: seed, Customers: 60, Planted: 4, Now: fixedNow}
	clean, untyped := oneSnapshot(t, o), twoSnapshots(t, o, "untyped=0.3")
	for _, period := range []*findings.Period{nil, periodOf(fixedNow.AddDate(0, -1, 0))} {
		rc, ru := clean.reconcile(Options{Period: period}), untyped.reconcile(Options{Period: period})
		want := map[string]findings.Finding{}
		for _, f := range rc.Open() {
			want[f.Rule+" "+f.EntityID] = f
		}
		for _, f := range ru.Open() {
			c, ok := want[f.Rule+" "+f.EntityID]
			switch {
			case !ok:
				t.Errorf("seed %d, period %v: %s %s raised by an untyped value: %s", seed, period, f.Rule, f.EntityID, f.Detail)
			case c.Amount != f.Amount || (f.Amount != 0 && c.Currency != f.Currency):
				t.Errorf("seed %d, period %v: %s %s: %s %s; clean run %s %s", seed, period, f.Rule, f.EntityID, f.Amount, f.Currency, c.Amount, c.Currency)
			}
			delete(want, f.Rule+" "+f.EntityID)
		}
		notJudged := untyped.unjudgedKeys(ru)
		for key, f := range want {
			if !notJudged[key] {
				t.Errorf("seed %d, period %v: %s %s of the clean run is neither found nor said not judged", seed, period, f.Rule, f.EntityID)
			}
			exercised[f.Rule]++
		}
		for rule, n := range ru.HeldBack {
			exercised[rule] += n
		}
		if len(ru.Unjudged) == 0 || len(ru.Unguarded) != 0 {
			t.Errorf("seed %d: unjudged %v, unguarded %v", seed, ru.Unjudged, ru.Unguarded)
		}
	}
	return untyped
}

// checkUnguardedNamed checks, on e whose values arrived untyped, that a
// user's rule without a "not judged" section is named, so that a report
// can say its findings may be affected.
func checkUnguardedNamed(t *testing.T, e *env) {
	t.Helper()
	rules, _ := Rules("")
	user, err := ParseRule("mine.sql", "-- id: my_rule\n-- severity: low\nSELECT 'invoice' AS entity, id AS entity_id, 0 AS amount, currency_code AS currency, '' AS detail FROM cur.invoices WHERE total_amount > 1e9")
	if err != nil || user.Guarded {
		t.Fatal(user, err)
	}
	r := e.reconcile(Options{Rules: append(rules, user)})
	if !slices.Equal(r.Unguarded, []string{"my_rule"}) {
		t.Errorf("unguarded: %v", r.Unguarded)
	}
}

func TestParseNotJudged(t *testing.T) {
	t.Parallel()
	r, err := ParseRule("a.sql", "-- id: a\n-- severity: low\nSELECT 1\n-- not judged:\nSELECT 2;\n")
	if err != nil || r.SQL != "SELECT 1" || r.NotJudged != "SELECT 2" || !r.Guarded {
		t.Errorf("%+v, %v", r, err)
	}
	r, err = ParseRule("b.sql", "-- id: b\n-- severity: low\nSELECT 1\n-- not judged: none, it reads the spec's fields\n")
	if err != nil || r.NotJudged != "" || !r.Guarded {
		t.Errorf("%+v, %v", r, err)
	}
	if _, err := ParseRule("c.sql", "-- id: c\n-- severity: low\nSELECT 1\n-- not judged: SELECT 2\n"); err == nil {
		t.Error("a query on the mark's line is taken")
	}
}

var fixedNow = time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC)

func periodOf(t time.Time) *findings.Period {
	p, err := findings.ParsePeriod(t.Format("2006-01"))
	if err != nil {
		panic(err)
	}
	return p
}

// oneSnapshot exports the sandbox once: for the clean run the untyped
// one is compared with, whose rule 15 has no finding with a previous
// snapshot of the same records, nor without one (rule 15 alone reads the
// previous snapshot).
func oneSnapshot(t *testing.T, o sandbox.Options) *env {
	e := newEnv(t, o)
	e.export()
	return e
}

// twoSnapshots exports the sandbox twice, so that rule 15 has a previous
// snapshot.
func twoSnapshots(t *testing.T, o sandbox.Options, faults string) *env {
	e := newEnvFaults(t, o, faults)
	e.export()
	e.export()
	return e
}

// unjudgedKeys are "rule entity_id" of the records r's rules did not
// judge, as readers of the store see them.
func (e *env) unjudgedKeys(r *findings.Report) map[string]bool {
	out := map[string]bool{}
	opts := storeconfig.DefaultOptions()
	opts.Out = e.store.Dir()
	db, err := snapshot.OpenRead(context.Background(), opts)
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(context.Background(), "SELECT rule || ' ' || entity_id FROM unjudged WHERE snapshot_id = ? AND coalesce(period, '') = ?",
		r.Snapshot.ID, r.Period.String())
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		rows.Scan(&k)
		out[k] = true
	}
	return out
}
