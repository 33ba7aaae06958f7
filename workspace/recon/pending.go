package recon

import (
	"context"
	"database/sql"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/worklist"
)

// A waiver made in the workspace shows at once: the findings it names are
// marked waived, pending the next reconciliation, which applies it to the
// totals and to materiality. What follows finds those waivers.

// Standing are the ledger's waivers that stand and apply on the day of
// now, by readmodel.WaiverKey.
func Standing(l *ledger.Ledger, now time.Time) (map[string]ledger.Made, error) {
	entries, err := l.Read()
	if err != nil {
		return nil, err
	}
	today := now.UTC().Format(time.DateOnly)
	out := map[string]ledger.Made{}
	for _, m := range ledger.Fold(entries).Standing() {
		if m.Expires >= today {
			out[readmodel.WaiverKey(m.Rule, m.EntityID)] = m
		}
	}
	return out, nil
}

// PendingOf is the standing waiver that names f when f's reconciliation
// came before it: f is open and not waived there.
func PendingOf(f findings.Finding, st map[string]ledger.Made) (*findings.Waiver, bool) {
	if f.Waiver != nil || f.Status == findings.StatusResolved {
		return nil, false
	}
	m, ok := st[readmodel.WaiverKey(f.Rule, f.EntityID)]
	if !ok {
		return nil, false
	}
	expires, _ := time.Parse(time.DateOnly, m.Expires)
	return &findings.Waiver{Rule: m.Rule, EntityID: m.EntityID, Reason: m.Reason, Owner: m.Owner,
		Expires: findings.Date{Time: expires}, ID: m.ID, By: m.By}, true
}

// WorkOf reads the work of reconciliation rc's findings from the ledger l.
func WorkOf(ctx context.Context, db *sql.DB, l *ledger.Ledger, rc Recon) (worklist.Reading, error) {
	entries, err := l.Read()
	if err != nil {
		return worklist.Reading{}, err
	}
	started, err := readmodel.SnapshotStarts(ctx, db)
	return worklist.Read(entries, started, rc.AsOf), err
}

// ConflictError is an action the state of the period does not allow yet:
// a close with no sign-off, or of findings changed since it, or a
// sign-off of a flux review not explained.
type ConflictError struct{ Msg string }

func (e *ConflictError) Error() string { return e.Msg }
