package fix

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/billsnap/billsnap/snapshot/migrate"
)

// A plan is refused when edited after it was made, or made from a
// snapshot other than the latest complete one; one made from the latest
// passes.
func TestCheckPlanRefusesAnEditedOrStalePlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := int64(2)
	p := Plan{Snapshot: "s2", Created: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), Actions: []Action{{Op: OpSetAmount,
		ReferenceID: "00000000-0000-4000-8000-000000000002", Quantity: &q, Finding: Finding{Rule: "r", EntityID: "e", Amount: "5", Currency: "EUR"}}}}
	p.Digest = p.Sum()
	var refused *PlanError
	if err := p.CheckDigest(); err != nil {
		t.Errorf("CheckDigest of a plan as made: %v", err)
	}
	edited := p
	*edited.Actions[0].Quantity = 3
	if err := edited.CheckDigest(); !errors.As(err, &refused) {
		t.Errorf("CheckDigest of an edited plan: %v, want a *PlanError", err)
	}
	*edited.Actions[0].Quantity = 2
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := migrate.State(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`INSERT INTO snapshots (id, started, finished, status) VALUES
		('s1', TIMESTAMP '2026-11-01 03:00:00', TIMESTAMP '2026-11-01 03:10:00', 'complete'),
		('s2', TIMESTAMP '2026-11-02 03:00:00', TIMESTAMP '2026-11-02 03:10:00', 'complete')`,
		"CREATE OR REPLACE VIEW latest_snapshot AS SELECT * FROM snapshots WHERE id = 's2'"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckLatest(ctx, db, p); err != nil {
		t.Errorf("CheckLatest of a plan of the latest: %v", err)
	}
	stale := p
	stale.Snapshot = "s1"
	if err := CheckLatest(ctx, db, stale); !errors.As(err, &refused) || refused.Msg == "" {
		t.Errorf("CheckLatest of a plan of s1: %v, want a *PlanError", err)
	}
}
