package workspace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// A waiver made here shows at once: the findings it names are marked
// waived, pending the next reconciliation, which applies it to the totals
// and to materiality. What follows finds those waivers.

// standing are the ledger's waivers that stand and apply today, by
// readmodel.WaiverKey.
func (s *Server) standing() (map[string]ledger.Made, error) {
	entries, err := s.o.Ledger.Read()
	if err != nil {
		return nil, err
	}
	today := s.o.Now().UTC().Format(time.DateOnly)
	out := map[string]ledger.Made{}
	for _, m := range ledger.Fold(entries).Standing() {
		if m.Expires >= today {
			out[readmodel.WaiverKey(m.Rule, m.EntityID)] = m
		}
	}
	return out, nil
}

// pendingOf is the standing waiver that names f when f's reconciliation
// came before it: f is open and not waived there.
func pendingOf(f findings.Finding, st map[string]ledger.Made) (*findings.Waiver, bool) {
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

// UnnamedError is a waiver of a rule and record that no finding of the
// store names: it would stand in the ledger for good, waiving nothing.
type UnnamedError struct{ Rule, EntityID string }

func (e *UnnamedError) Error() string {
	return fmt.Sprintf("waiver: no finding of rule %s names record %q: a waiver must name a finding the workspace lists", e.Rule, e.EntityID)
}

// checkNamed refuses a waiver of rule and entityID that no stored
// finding names (UnnamedError), a store with none included.
func (s *Server) checkNamed(ctx context.Context, rule, entityID string) error {
	db, done, err := s.model.get(ctx)
	if errors.Is(err, snapshot.ErrNoStore) {
		return &UnnamedError{Rule: rule, EntityID: entityID}
	}
	if err != nil {
		return err
	}
	defer done()
	named, err := readmodel.Named(ctx, db, rule, entityID)
	if err == nil && !named {
		err = &UnnamedError{Rule: rule, EntityID: entityID}
	}
	return err
}
