package modelfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/internal/fileutil"
)

// Sync builds the read model the state db (in a section) asks for, when
// the one it has is not: its latest_ tables must hold the state's latest
// complete snapshot, and its views must be the ones the state makes.
// built is the model the section built already ("" for none), which is
// the one it has then, else the public file (Held). Sync returns the
// model it built, to be shown once the section commits (Show), or "" when
// the model needs nothing (the records are all that changed). A model
// whose latest snapshot is not the state's is built from the snapshot's
// DuckDB file in staging, or from its Parquet (Of); one whose views alone
// differ is the section's model with the views made again, or, when the
// public file is the one, a model built anew from the Parquet: billsnap
// never reads the public file, which a reader may have changed.
func (s Model) Sync(ctx context.Context, db *sql.DB, built string) (string, error) {
	var latest string
	err := db.QueryRowContext(ctx, "SELECT id FROM latest_snapshot").Scan(&latest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	held, err := s.Held(built)
	var want string
	if err == nil && held.Latest == latest {
		if want, err = s.ViewsKey(ctx, db); err != nil {
			return "", err
		}
	}
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		s.Log.Warn("what the read model holds cannot be read; building it anew", "error", err)
	case err != nil:
	case held.Latest != latest:
	case held.Views == want:
		return "", nil
	case built != "":
		return s.build(ctx, db, built, held.Latest)
	}
	if latest == "" {
		next := s.Next()
		if err := s.Empty(ctx, db, next); err != nil {
			return "", err
		}
		return s.build(ctx, db, next, "")
	}
	return s.Of(ctx, db, latest)
}

// build is Build, returning base when it is built.
func (s Model) build(ctx context.Context, db *sql.DB, base, latest string) (string, error) {
	if err := s.Build(ctx, db, base, latest); err != nil {
		return "", err
	}
	return base, nil
}

// Of builds the read model of complete snapshot id and returns it: from
// the snapshot's DuckDB file in staging, or rebuilt from its Parquet when
// that is gone or cannot be used (a run killed while it was being made
// the model). db is the state, in a section.
func (s Model) Of(ctx context.Context, db *sql.DB, id string) (string, error) {
	next := s.Next()
	if err := os.Rename(s.At.StagedModel(id), next); err == nil {
		err := s.Build(ctx, db, next, id)
		if err == nil {
			return next, nil
		}
		s.Log.Warn("the snapshot's DuckDB file cannot be made the read model; building it from the Parquet", "snapshot", id, "error", err)
	}
	if err := s.FromParquet(ctx, db, id, next); err != nil {
		return "", err
	}
	return s.build(ctx, db, next, id)
}

// Show shows built, a model Sync or Build made ("" for none), once the
// state has committed: made durable, renamed over the public file, and
// what it holds written after it (model.json). A crash between the two
// leaves model.json saying less than the public file holds, and the next
// publish builds the model again.
func (s Model) Show(built string) error {
	if built == "" {
		return nil
	}
	if _, err := os.Stat(built + ".wal"); err == nil {
		return fmt.Errorf("read model: %s still has a WAL after its checkpoint", built)
	}
	if err := fileutil.SyncFile(built); err != nil {
		return fmt.Errorf("publishing the read model: %w", err)
	}
	crashpoint.Hit("model.copied")
	if err := os.Rename(built, s.Public); err != nil {
		return fmt.Errorf("publishing the read model: %w", err)
	}
	fileutil.SyncDir(filepath.Dir(s.Public))
	crashpoint.Hit("model.public")
	if err := os.Rename(infoOf(built), s.At.ModelInfo()); err != nil {
		return fmt.Errorf("publishing the read model: %w", err)
	}
	fileutil.SyncDir(s.At.Private())
	os.Remove(s.At.OldMaster())
	return nil
}
