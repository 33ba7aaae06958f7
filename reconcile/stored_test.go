package reconcile

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/billsnap/billsnap/findings"
)

// A stored reconciliation reads back as Run returned it: the same
// findings in the same order, the same as-of and materiality; a snapshot
// not reconciled for a period says so.
func TestStoredIsWhatRunReturned(t *testing.T) {
	t.Parallel()
	fx, db := loadFixture(t, "11_paid_without_payment")
	rules, err := Rules("")
	if err != nil {
		t.Fatal(err)
	}
	o := fx.options(rules)
	ran, err := Run(context.Background(), source(db), o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Stored(context.Background(), db, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ran.Findings) == 0 || !reflect.DeepEqual(got.Findings, ran.Findings) {
		t.Fatalf("stored findings differ:\n got %+v\nwant %+v", got.Findings, ran.Findings)
	}
	if !got.AsOf.Equal(ran.AsOf) || !reflect.DeepEqual(got.Material, ran.Material) || got.Snapshot.ID != ran.Snapshot.ID {
		t.Fatalf("stored %v %v %s, ran %v %v %s", got.AsOf, got.Material, got.Snapshot.ID, ran.AsOf, ran.Material, ran.Snapshot.ID)
	}
	o.Period, _ = findings.ParsePeriod("1999-01")
	var nr *NotReconciledError
	if _, err := Stored(context.Background(), db, o); !errors.As(err, &nr) {
		t.Fatalf("a period never reconciled: %v", err)
	}
}
