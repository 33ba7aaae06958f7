package fix

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/billsnap/billsnap/reconcile"
)

// PlanError is a plan refused before anything of it is sent: changed
// after it was made, or made from a snapshot other than the latest
// complete one. It is the caller's mistake.
type PlanError struct{ Msg string }

func (e *PlanError) Error() string { return e.Msg }

// CheckDigest refuses, as a *PlanError, a plan whose digest is not its
// content's: one changed after it was made.
func (p Plan) CheckDigest() error {
	if sum := p.Sum(); sum != p.Digest {
		return &PlanError{fmt.Sprintf("the plan's digest is %s, but its content's is %s: it was changed after it was made (make it again, or --force)", p.Digest, sum)}
	}
	return nil
}

// CheckLatest refuses, as a *PlanError, a plan made from a snapshot
// other than the latest complete one of db (the read model).
func CheckLatest(ctx context.Context, db *sql.DB, p Plan) error {
	info, _, err := reconcile.Resolve(ctx, db, reconcile.Latest)
	if err != nil {
		return err
	}
	if info.ID != p.Snapshot {
		return &PlanError{fmt.Sprintf("the plan was made from snapshot %s, and the latest is %s: make the plan again from the latest (or --force)", p.Snapshot, info.ID)}
	}
	return nil
}
