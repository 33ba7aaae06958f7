package readmodel_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// reconRows are reconciliations of snapshots a and b (snapshotRows), and
// their totals; a's of 2026-11 found nothing.
const reconRows = `INSERT INTO reconciliations VALUES
	('a', '2026-11', TIMESTAMPTZ '2026-11-01 00:00:00+00', TIMESTAMPTZ '2026-11-01 04:00:00+00', 0, false),
	('b', '2026-11', TIMESTAMPTZ '2026-11-02 00:00:00+00', TIMESTAMPTZ '2026-11-02 05:00:00+00', 3, true),
	('b', '2026-10', TIMESTAMPTZ '2026-10-31 00:00:00+00', TIMESTAMPTZ '2026-11-02 06:00:00+00', 1, false);
	INSERT INTO reconciliation_totals (snapshot_id, period, severity, currency, findings, amount) VALUES
	('b', '2026-11', 'high', 'EUR', 2, 12.50),
	('b', '2026-11', 'critical', '', 1, 0),
	('b', '2026-10', 'low', 'USD', 1, 1.00)`

func TestReconciliations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, snapshotRows, reconRows)
	of, err := readmodel.ReconciliationsOf(ctx, db, "b")
	if err != nil || len(of) != 2 || of[0].Period != "2026-10" || of[1].Period != "2026-11" || !of[1].At.Equal(at(2, 5, 0)) ||
		of[1].Findings != 3 || !of[1].Material || !of[1].AsOf.Equal(at(2, 0, 0)) {
		t.Errorf("ReconciliationsOf(b): %+v, %v; want newest first, then by period", of, err)
	}
	after, err := readmodel.ReconciledAfter(ctx, db, "2026-11", at(1, 3, 0))
	if err != nil || len(after) != 2 || after[0].Snapshot != "b" || after[1].Snapshot != "a" {
		t.Errorf("ReconciledAfter: %+v, %v; want both of 2026-11, newest first", after, err)
	}
	if after, err := readmodel.ReconciledAfter(ctx, db, "2026-11", at(1, 4, 0)); err != nil || len(after) != 1 {
		t.Errorf("ReconciledAfter the first: %+v, %v; want the one after it", after, err)
	}
	if ids, err := readmodel.ReconciledSnapshots(ctx, db, 100); err != nil || !slices.Equal(ids, []string{"b", "a"}) {
		t.Errorf("ReconciledSnapshots: %v, %v", ids, err)
	}
	if ids, err := readmodel.ReconciledSnapshots(ctx, db, 1); err != nil || !slices.Equal(ids, []string{"b"}) {
		t.Errorf("ReconciledSnapshots(1): %v, %v", ids, err)
	}
	if asOf, err := readmodel.AsOf(ctx, db, "b", "2026-11"); err != nil || !asOf.Equal(at(2, 0, 0)) {
		t.Errorf("AsOf(b, 2026-11): %v, %v", asOf, err)
	}
	if _, err := readmodel.AsOf(ctx, db, "a", "2026-10"); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("AsOf of none: %v, want sql.ErrNoRows", err)
	}
}

func TestTrend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, snapshotRows, reconRows)
	got, err := readmodel.Trend(ctx, db, "2026-11", "c", at(2, 3, 0), 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []readmodel.TrendRow{
		{Snapshot: "a", Started: at(1, 3, 0)},
		{Snapshot: "b", Started: at(1, 3, 0), Severity: "critical", Findings: 1},
		{Snapshot: "b", Started: at(1, 3, 0), Severity: "high", Currency: "EUR", Findings: 2, Amount: money.Amount(1250)},
	}
	for i := range got {
		got[i].Started = got[i].Started.UTC()
	}
	if !slices.Equal(got, want) {
		t.Errorf("Trend:\n%+v\nwant\n%+v", got, want)
	}
	if got, err := readmodel.Trend(ctx, db, "2026-11", "c", at(2, 3, 0), 1); err != nil || len(got) != 2 || got[0].Snapshot != "b" {
		t.Errorf("Trend of 1: %+v, %v; want b's alone", got, err)
	}
	if got, err := readmodel.Trend(ctx, db, "2026-11", "a", at(1, 3, 0), 5); err != nil || len(got) != 1 || got[0].Snapshot != "a" {
		t.Errorf("Trend up to a: %+v, %v; want a alone", got, err)
	}
}
