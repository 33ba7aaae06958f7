package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/workspace/recon"
)

// standing are the ledger's waivers that stand and apply today
// (recon.Standing).
func (s *Server) standing() (map[string]ledger.Made, error) {
	return recon.Standing(s.o.Ledger, s.o.Now())
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
