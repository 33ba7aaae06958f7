package reconcile

import (
	"context"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// stored reads back the stored reconciliation of snapshot id, as
// readers of the store see it.
func (e *env) stored(id string) (*findings.Report, error) {
	opts := storeconfig.DefaultOptions()
	opts.Out = e.store.Dir()
	db, err := snapshot.OpenRead(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return Stored(context.Background(), db, e.options(Options{SnapshotID: id}))
}
