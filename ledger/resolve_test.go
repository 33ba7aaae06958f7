package ledger

import (
	"errors"
	"testing"
)

// Resolutions are chained entries: the latest of a finding stands, the
// same sent again records nothing, one without a reason code or with a
// control character in its note is refused, and the ledger verifies.
func TestResolutionsStandLatest(t *testing.T) {
	l := testLedger(t)
	x := Resolution{Rule: "charge_not_invoiced", EntityID: "c1", ReasonCode: "corrected_at_source", Note: " invoiced in run 7 "}
	first, err := l.Resolve(alice, x)
	if err != nil || first.ID == "" || first.Note != "invoiced in run 7" || first.By != "alice" {
		t.Fatalf("resolve: %+v, %v", first, err)
	}
	if again, err := l.Resolve(alice, x); err != nil || again.ID != first.ID {
		t.Fatalf("the same again: %+v, %v", again, err)
	}
	x.ReasonCode = "credit_note"
	if _, err := l.Resolve(Actor{By: "carol"}, x); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Resolution{{Rule: "r", EntityID: "e"}, {Rule: "r", EntityID: "e", ReasonCode: "timing", Note: "a\x07b"}} {
		var invalid *InvalidError
		if _, err := l.Resolve(alice, bad); !errors.As(err, &invalid) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	entries, err := l.Read()
	if err != nil || len(entries) != 2 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	if got := Resolutions(entries)[AssignKey{"charge_not_invoiced", "c1"}]; got.ReasonCode != "credit_note" || got.By != "carol" {
		t.Fatalf("standing: %+v", got)
	}
	if _, err := l.Verify(); err != nil {
		t.Fatal(err)
	}
}
