package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// Adoption is a directory whose published database has no state beside
// it, as the store that adopts it sees it.
type Adoption struct {
	At     layout.Dir
	Public string          // the published database, the file adopted
	Tables []catalog.Table // the store's tables, the configuration's fields applied
	Tree   tree.Tree       // the Parquet tree of complete snapshots
	Log    *slog.Logger
}

// Publisher is what adopting asks of the store that adopts: its publish
// steps, done in the section whose state Adopt fills.
type Publisher interface {
	// PublishIncomplete moves incomplete snapshot id's staged Parquet
	// into the tree of incomplete snapshots.
	PublishIncomplete(id string) error
	// EmptyModel makes path a read model that holds no snapshot.
	EmptyModel(ctx context.Context, path string) error
	// PublishModel makes path, whose latest_ tables hold snapshot latest
	// ("" for none), the next read model, with the records, shown once
	// the state is in place.
	PublishModel(ctx context.Context, path, latest string) error
}

// Adopt fills db, the state being made, from the published database:
//   - a store of an earlier billsnap (schema version 1), where one DuckDB
//     file held every snapshot's rows, the runs and the state, is migrated:
//     its state tables become the state, its latest complete snapshot the
//     read model, its incomplete snapshots' rows the incomplete tree's
//     Parquet, its runs the journal (migrateData);
//   - a read model whose state is gone (a crash while adopting, or state
//     removed by hand) gives the state back from its copies.
func Adopt(ctx context.Context, db *sql.DB, a Adoption, p Publisher) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (READ_ONLY)", state.SQLString(a.Public), OldAlias)); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+OldAlias)
	var version string
	if err := conn.QueryRowContext(ctx, "SELECT value FROM "+OldAlias+".billsnap_meta WHERE key = 'schema_version'").Scan(&version); err != nil {
		// A read model of this billsnap (whose state is gone) has no meta.
		if _, merr := conn.ExecContext(ctx, "SELECT count(*) FROM "+OldAlias+".billsnap_model"); merr != nil {
			return fmt.Errorf("it is not a billsnap store: %w", err)
		}
	}
	if err := CopyStateTables(ctx, conn, adoptedTables()); err != nil {
		return err
	}
	if version != "1" {
		a.Log.Warn("billsnap's state was missing; taken back from the read model", "from", a.Public)
		return nil
	}
	a.Log.Warn("migrating a store of an earlier billsnap: one DuckDB file becomes the read model, the state and the journal", "dir", a.At)
	return migrateData(ctx, db, conn, a, p)
}

// adoptedTables are the tables an adopted store may hold: the state's,
// and the run records' (as tables or as a read model's views), which
// the first section makes files (UpgradeRunRecords).
func adoptedTables() []string {
	out := append([]string{"billsnap_meta"}, runrec.RecordTables()...)
	for _, k := range runrec.Kinds() {
		out = append(out, k.Name)
	}
	return out
}

// migrateData moves an old store's rows out of its one file: the runs to
// the journal, the incomplete snapshots to their tree, the latest complete
// snapshot into a new read model, published over the old file.
func migrateData(ctx context.Context, db *sql.DB, conn *sql.Conn, a Adoption, p Publisher) error {
	if err := RenameOldPartitions(a.Tree); err != nil {
		return err
	}
	if err := MoveRuns(ctx, conn, a.At.Runs()); err != nil {
		return err
	}
	incomplete, err := state.Strings(ctx, db, "SELECT id FROM snapshots WHERE status = 'incomplete'")
	if err != nil {
		return err
	}
	for _, id := range incomplete {
		if err := ExportIncomplete(ctx, conn, id, a.At.Staged(id), a.Tables); err != nil {
			return err
		}
		if err := p.PublishIncomplete(id); err != nil {
			return err
		}
	}
	var latest string
	err = conn.QueryRowContext(ctx, "SELECT id FROM "+OldAlias+".snapshots WHERE status = 'complete' ORDER BY started DESC, id DESC LIMIT 1").Scan(&latest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	next := a.At.ModelNext()
	os.Remove(next)
	if err := p.EmptyModel(ctx, next); err != nil {
		return err
	}
	if err := CopyLatest(ctx, conn, next, latest, a.Tables); err != nil {
		return err
	}
	os.RemoveAll(a.At.Staging())
	if _, err := conn.ExecContext(ctx, "DETACH DATABASE "+OldAlias); err != nil {
		return err
	}
	return p.PublishModel(ctx, next, latest)
}
