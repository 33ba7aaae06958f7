package reconcile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// NotReconciledError is a snapshot that has no stored reconciliation for
// the period asked.
type NotReconciledError struct{ Snapshot, Period string }

func (e *NotReconciledError) Error() string {
	if e.Period == "" {
		return fmt.Sprintf("snapshot %s has not been reconciled: run billsnap reconcile --snapshot %s", e.Snapshot, e.Snapshot)
	}
	return fmt.Sprintf("snapshot %s has not been reconciled for %s: run billsnap reconcile --snapshot %s --period %s",
		e.Snapshot, e.Period, e.Snapshot, e.Period)
}

// Stored reads back the stored reconciliation of snapshot o.SnapshotID
// (an ID, Latest or Previous) for o.Period from db, the read model or the
// state, without running a rule: its findings in the order Run gives them
// (o.Rules' order, resolved last), its as-of and its materiality judged by
// o.Materiality. It is *NotReconciledError when there is none, and
// *UnknownSnapshotError for a snapshot that does not exist.
func Stored(ctx context.Context, db *sql.DB, o Options) (*findings.Report, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	r := &findings.Report{Period: o.Period, Rules: o.Rules}
	if err := resolve(ctx, conn, o.SnapshotID, r); err != nil {
		return nil, err
	}
	r.AsOf, err = readmodel.AsOf(ctx, conn, r.Snapshot.ID, r.Period.String())
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &NotReconciledError{Snapshot: r.Snapshot.ID, Period: r.Period.String()}
	}
	if err != nil {
		return nil, err
	}
	if err := load(ctx, conn, r, readmodel.Relations{}); err != nil {
		return nil, err
	}
	r.Material = r.Judge(o.Materiality)
	return r, nil
}

// Resolve finds snapshot id (an ID, Latest or Previous) in db without
// reading its findings: what it is, and the complete snapshot before it.
func Resolve(ctx context.Context, db *sql.DB, id string) (findings.SnapshotInfo, string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return findings.SnapshotInfo{}, "", err
	}
	defer conn.Close()
	var r findings.Report
	err = resolve(ctx, conn, id, &r)
	return r.Snapshot, r.Previous, err
}
