package reconcile

import (
	"fmt"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/sandbox"
)

func keyOf(rule, entity, id, amount, cur string) string {
	return fmt.Sprintf("%s %s %s %s %s", rule, entity, id, amount, cur)
}

// findingKeys are a report's open findings of rules 1–14.
func findingKeys(r *findings.Report) []string {
	var out []string
	for _, f := range r.Open() {
		out = append(out, keyOf(f.Rule, f.Entity, f.EntityID, f.Amount.String(), f.Currency))
	}
	slices.Sort(out)
	return out
}

func answerKeys(k sandbox.AnswerKey) []string {
	var out []string
	for rule, fs := range k.Rules {
		for _, f := range fs {
			out = append(out, keyOf(rule, f.Entity, f.EntityID, f.Amount, f.Currency))
		}
	}
	slices.Sort(out)
	return out
}

// The findings equal the answer key exactly: precision and recall 1.0,
// amounts to the cent. The fast tier takes one seed (the shared keyed
// snapshot), the heavy tier seven more (TestFindingsEqualTheAnswerKeyEverySeed).
func TestFindingsEqualTheAnswerKey(t *testing.T) {
	t.Parallel()
	e, r := keyedEnv(t)
	checkAnswerKey(t, 1, e, r)
}

func findingsEqualTheAnswerKey(t *testing.T, seeds ...uint64) {
	for _, seed := range seeds {
		e := newEnv(t, keyedOptions(seed))
		e.export()
		checkAnswerKey(t, seed, e, e.reconcile(Options{}))
	}
}

// keyedOptions is the answer-key test's sandbox of seed.
func keyedOptions(seed uint64) sandbox.Options {
	return sandbox.Options{Seed: seed, Customers: 60 + 20*int(seed), Planted: 1 + int(seed%6)}
}

// checkAnswerKey checks r, the reconciliation of e's sandbox of seed,
// against the sandbox's answer key.
func checkAnswerKey(t *testing.T, seed uint64, e *env, r *findings.Report) {
	t.Helper()
	got, want := findingKeys(r), answerKeys(e.srv.AnswerKey())
	if !slices.Equal(got, want) {
		t.Errorf("seed %d: %d findings, answer key %d\nfound, not in key: %v\nin key, not found: %v",
			seed, len(got), len(want), minus(got, want), minus(want, got))
	}
	if r.Untrusted || len(r.Material) == 0 {
		t.Errorf("seed %d: untrusted %v, material %v", seed, r.Untrusted, r.Material)
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// cleanDataGivesNoFinding checks that a sandbox of each seed with
// nothing planted, exported once, gives no finding: the heavy tier's
// TestCleanDataGivesNoFindingEverySeed. The fast tier checks it on
// TestPaidInvoiceChanged's first snapshot (checkClean).
func cleanDataGivesNoFinding(t *testing.T, seeds ...uint64) {
	for _, seed := range seeds {
		e := newEnv(t, sandbox.Options{Seed: seed, Customers: 300})
		e.export()
		checkClean(t, seed, e.reconcile(Options{}))
	}
}

// checkClean checks that r, the reconciliation of a snapshot of the
// sandbox of seed with nothing planted, found nothing.
func checkClean(t *testing.T, seed uint64, r *findings.Report) {
	t.Helper()
	if len(r.Findings) != 0 || len(r.Material) != 0 {
		t.Errorf("seed %d: clean data gives %d findings (%d material reasons), first %+v", seed, len(r.Findings), len(r.Material), r.Findings[0])
	}
}
