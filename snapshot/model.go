package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/state"
)

// The read model is a DuckDB file built whole and then renamed into place,
// never changed after: a reader that opened it keeps a consistent view of
// its latest_ tables (the old inode), and one that opens the path
// afterwards gets the new one. It holds
//
//	latest_<table>      the latest complete snapshot, native tables
//	<table>             every complete snapshot: a view over the Parquet tree
//	incomplete_<table>  the incomplete snapshots: a view over their tree
//	snapshots, snapshot_tables, snapshot_fields, reconciliations,
//	reconciliation_totals, field_ids, runs, and the run records
//	findings, unjudged, rechecks
//	                    views over the records (runrec.Records)
//	latest_snapshot     the snapshot its latest_ tables hold, a view
//	billsnap_model      that snapshot's ID, and a digest of the views
//
// The views read through links that a publish switches, so they show
// what was published last when a query runs. A new model is built when
// the latest complete snapshot changes, or when the views it must have
// change (a tree no longer empty, a directory moved: they name absolute
// paths); a reconciliation publishes records only.
//
// billsnap keeps the model's master in DIR/.billsnap/model.duckdb (what
// reconcile reads) and publishes a copy of it as DIR/billsnap.duckdb.

// modelAlias is the name the model is attached under while it is built.
const modelAlias = "model_next"

// publishModel makes base, a private DuckDB file holding latest_<table>
// tables, the next read model: it writes its views; the section publishes
// it once the state is committed (publishPending), so that readers never
// see what the state might yet not record. latest is the snapshot its
// latest_ tables hold ("" when none).
func (s *Store) publishModel(ctx context.Context, sec *section, base, latest string) error {
	conn, err := sec.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	attach := fmt.Sprintf("ATTACH %s AS %s (ROW_GROUP_SIZE %d)", state.SQLString(base), modelAlias, s.duck.RowGroupSize)
	if _, err := conn.ExecContext(ctx, attach); err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	err = s.fillModel(ctx, conn, latest)
	if _, derr := conn.ExecContext(context.WithoutCancel(ctx), "USE "+state.AttachedAs+"; DETACH DATABASE IF EXISTS "+modelAlias); err == nil && derr != nil {
		err = derr
	}
	if err == nil {
		// The master is about to be replaced: what a section attached of
		// it would go on showing the old one.
		_, err = conn.ExecContext(ctx, "DETACH DATABASE IF EXISTS "+masterAlias)
	}
	if err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	crashpoint.Hit("model.built")
	sec.built = base
	return nil
}

// fillIn runs the statements that fill the DuckDB file attached as alias
// in one transaction (one commit, one sync of its WAL, where each
// statement would have its own), then checkpoints it so that it is one
// file.
func fillIn(ctx context.Context, conn *sql.Conn, alias string, stmts []string) error {
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, "CHECKPOINT "+alias)
	return err
}

// markPending records, before a section commits, that what it built is
// to be shown: the marker stays until publishPending has shown it all,
// so that the next billsnap finishes a publish a crash cut short
// (finishPublish).
func (s *Store) markPending(sec *section) error {
	if sec.built == "" && sec.recordsNext == "" {
		return nil
	}
	return os.WriteFile(s.at.PublishPending(), nil, 0o644)
}

// publishPending shows what a section built, once the state has
// committed: the records' generation, then the model, renamed over the
// master and copied over the public file.
func (s *Store) publishPending(sec *section) error {
	built, stale := sec.built, sec.publicStale
	sec.built, sec.publicStale = "", false
	if built == "" && sec.recordsNext == "" && !stale {
		return nil
	}
	if err := s.showRecords(sec); err != nil {
		return err
	}
	crashpoint.Hit("records.shown")
	if built != "" {
		// The master is not made durable before its rename (only the
		// public copy is): after a power cut it may be cut short, and the
		// next publish builds it anew (syncModel).
		if _, err := os.Stat(built + ".wal"); err == nil {
			return fmt.Errorf("read model: %s still has a WAL after its checkpoint", built)
		}
		if err := os.Rename(built, s.at.Master()); err != nil {
			return fmt.Errorf("read model: %w", err)
		}
		state.SyncDir(s.at.Private())
		crashpoint.Hit("model.master")
	}
	if built != "" || stale {
		if err := s.copyToPublic(); err != nil {
			return err
		}
	}
	return os.Remove(s.at.PublishPending())
}

// copyToPublic publishes the master: a copy written beside the public
// file, made durable, and renamed over it.
func (s *Store) copyToPublic() error {
	tmp := s.publicPath + ".next"
	if err := state.CopyFile(s.at.Master(), tmp, true); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("publishing the read model: %w", err)
	}
	crashpoint.Hit("model.copied")
	if err := os.Rename(tmp, s.publicPath); err != nil {
		return fmt.Errorf("publishing the read model: %w", err)
	}
	state.SyncDir(filepath.Dir(s.publicPath))
	crashpoint.Hit("model.public")
	return nil
}

// finishPublish publishes the state and the master again when a crash cut
// a publish short.
func (s *Store) finishPublish(ctx context.Context, sec *section) error {
	if _, err := os.Stat(s.at.PublishPending()); err != nil {
		return nil
	}
	s.log.Warn("finishing the publication a run left unfinished")
	sec.publicStale = true
	return s.syncModel(ctx, sec)
}

// syncModel publishes the state as it is now: the records always; the
// read model when its latest_ tables do not hold the state's latest
// complete snapshot (built from the snapshot's DuckDB file in staging, or
// from its Parquet), or when its views are not the ones it must have (a
// copy of it with them).
func (s *Store) syncModel(ctx context.Context, sec *section) error {
	db := sec.DB
	if err := s.buildRecords(ctx, sec); err != nil {
		return err
	}
	var latest string
	err := db.QueryRowContext(ctx, "SELECT id FROM latest_snapshot").Scan(&latest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	held, views, err := s.modelInfo(ctx, sec)
	var want viewSet
	if err == nil && held == latest {
		if want, err = s.views(ctx, db); err != nil {
			return err
		}
	}
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		s.log.Warn("the read model's master cannot be read; building it anew", "error", err)
	case err != nil:
	case held != latest:
	case views == want.key:
		return nil // the records are all that changed
	case sec.built != "":
		return s.publishModel(ctx, sec, sec.built, held)
	default:
		next := s.nextModel()
		if err := state.CopyFile(s.at.Master(), next, false); err != nil { // private: the public copy is made durable
			return err
		}
		return s.publishModel(ctx, sec, next, held)
	}
	if latest == "" {
		next := s.nextModel()
		if err := s.emptyModel(ctx, db, next); err != nil {
			return err
		}
		return s.publishModel(ctx, sec, next, "")
	}
	return s.modelOf(ctx, sec, latest)
}

// nextModel is where the next model is built, emptied.
func (s *Store) nextModel() string {
	next := s.at.MasterNext()
	os.Remove(next)
	os.Remove(next + ".wal")
	return next
}

// masterAlias is the name the master is attached under, read-only, in a
// section of the state: by reconcile (Bind) and to read what it holds.
const masterAlias = "model"

// attachMaster attaches the master on conn, read-only, unless it is.
func (s *Store) attachMaster(ctx context.Context, conn *sql.Conn) error {
	q := fmt.Sprintf("ATTACH IF NOT EXISTS %s AS %s (READ_ONLY)", state.SQLString(s.at.Master()), masterAlias)
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	return nil
}

// modelInfo is what the read model holds: the snapshot of its latest_
// tables ("" for none) and the digest of its views; the model this
// section built, else the master; os.ErrNotExist when there is neither.
func (s *Store) modelInfo(ctx context.Context, sec *section) (latest, views string, err error) {
	conn, err := sec.DB.Conn(ctx)
	if err != nil {
		return "", "", err
	}
	defer conn.Close()
	alias := masterAlias
	switch _, err := os.Stat(s.at.Master()); {
	case sec.built != "":
		alias = "model_built"
		q := fmt.Sprintf("ATTACH %s AS %s (READ_ONLY)", state.SQLString(sec.built), alias)
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return "", "", fmt.Errorf("read model: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+alias)
	case err != nil:
		return "", "", os.ErrNotExist
	default:
		if err := s.attachMaster(ctx, conn); err != nil {
			return "", "", err
		}
	}
	err = conn.QueryRowContext(ctx, "SELECT max(value) FILTER (key = 'latest'), coalesce(max(value) FILTER (key = 'views'), '') FROM "+
		alias+".billsnap_model").Scan(&latest, &views)
	return latest, views, err
}

// emptyModel makes a model file at path with empty latest_ tables: the
// read model of a store without a complete snapshot.
func (s *Store) emptyModel(ctx context.Context, db *sql.DB, path string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (ROW_GROUP_SIZE %d)", state.SQLString(path), modelAlias, s.duck.RowGroupSize)); err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+modelAlias)
	for _, t := range s.tables {
		if _, err := conn.ExecContext(ctx, t.CreateSQL(modelAlias+".latest_"+t.Name)); err != nil {
			return fmt.Errorf("read model: %w", err)
		}
	}
	return nil
}

// modelFromParquet builds at path a model file whose latest_ tables hold
// complete snapshot id, read from the Parquet tree: when the DuckDB file
// its export built is gone. db is the state, in a section.
func (s *Store) modelFromParquet(ctx context.Context, db *sql.DB, id, path string) error {
	os.Remove(path)
	os.Remove(path + ".wal")
	if err := s.emptyModel(ctx, db, path); err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (ROW_GROUP_SIZE %d)", state.SQLString(path), modelAlias, s.duck.RowGroupSize)); err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+modelAlias)
	s.log.Warn("building the read model from the Parquet of the latest snapshot", "snapshot", id)
	for _, t := range s.tables {
		glob := filepath.Join(s.partitionDir(t.Name, id), "*.parquet")
		q := fmt.Sprintf("INSERT INTO %s.latest_%s BY NAME %s", modelAlias, t.Name, parquetRelation(glob))
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("read model: loading %s: %w", t.Name, err)
		}
	}
	_, err = conn.ExecContext(ctx, "CHECKPOINT "+modelAlias)
	return err
}
