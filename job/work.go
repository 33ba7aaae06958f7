package job

import (
	"context"
	"database/sql"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/worklist"
)

// WorkOf reads what the work of rep's findings is read from: the
// assignments of the ledger of the store at out, and the start of each
// snapshot of db, the store's read model.
func WorkOf(ctx context.Context, out string, db *sql.DB, rep *findings.Report) (worklist.Reading, error) {
	entries, err := ledger.New(layout.Dir(out).Ledger(), time.Now).Read()
	if err != nil {
		return worklist.Reading{}, err
	}
	started, err := readmodel.SnapshotStarts(ctx, db)
	return worklist.Read(entries, started, rep.AsOf), err
}
