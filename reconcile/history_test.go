package reconcile

import (
	"context"
	"database/sql"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
)

// foundFor reports whether any finding is about id.
func foundFor(r *findings.Report, id string) bool {
	for _, f := range r.Findings {
		if f.EntityID == id {
			return true
		}
	}
	return false
}

// checkTrend checks the trend of the last two of e's three
// reconciliations, last the newest: one point a reconciliation, in
// order, the newest counting its open findings, by severity and by
// currency.
func checkTrend(t *testing.T, e *env, last *findings.Report) {
	t.Helper()
	var points []findings.TrendPoint
	var err error
	e.query(func(db *sql.DB) { points, err = Trend(context.Background(), db, nil, last.Snapshot, 2) })
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 2 || points[1].Snapshot != last.Snapshot.ID || points[0].Started.After(points[1].Started) {
		t.Fatalf("trend %+v", points)
	}
	open := last.Open()
	if points[1].Count() != last.OpenCount() || points[1].BySeverity["critical"] == 0 {
		t.Errorf("point %+v, %d open findings", points[1], len(open))
	}
	want := map[string]money.Amount{}
	for _, f := range open {
		want[f.Currency] += f.Amount
	}
	for cur, a := range want {
		if points[1].Amounts[cur] != a {
			t.Errorf("%s: %s, want %s", cur, points[1].Amounts[cur], a)
		}
	}
}
