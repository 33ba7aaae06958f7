//go:build heavy

package reconcile

import (
	"testing"
)

// Values with no lossless reading never raise a finding: each finding is
// one the clean run has, with its amount (and its currency, where the
// amount is not zero). And they are never silent: each finding of the
// clean run that is not found is among the records the rule says it did
// not judge. Every rule's "not judged" query is exercised: the shares and
// seeds give untyped values in every field the rules read: the heavy tier
// takes four seeds and checks that (TestUntypedValuesEverySeed); the fast
// tier one, whose untyped snapshot then shows that a rule that does not
// say what it did not judge is named (checkUnguardedNamed).
func TestUntypedValuesRaiseNoFindingAndAreNeverSilent(t *testing.T) {
	t.Parallel()
	checkUnguardedNamed(t, untypedSeed(t, 1, map[string]int{}))
}
