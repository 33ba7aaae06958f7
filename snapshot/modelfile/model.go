package modelfile

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// Model is the read model of an output directory, as its store has it
// now: where its files are, the tables of its latest_ tables and views,
// and what its views read (the Parquet trees, the records).
type Model struct {
	At           layout.Dir
	Public       string          // DIR/billsnap.duckdb
	Tables       []catalog.Table // the store's tables, the configuration's fields applied
	Trees        []ParquetTree   // the Parquet trees: of complete snapshots first, then of incomplete ones
	Records      runrec.Records
	RecordsLink  string // DIR/records
	Runs         runrec.Files
	RowGroupSize int
	Log          *slog.Logger
}

// ParquetTree is a Parquet tree the model's views read: its link, the status its
// snapshots have, and the prefix of its views' names.
type ParquetTree struct{ Link, Status, Prefix string }

// modelAlias is the name the model is attached under while it is built.
const modelAlias = "model_next"

// Build makes base, a private DuckDB file holding latest_<table> tables,
// the next read model: it writes its views, and beside it what it holds
// (Info); the store's section publishes it once the state is committed
// (Show), so that readers never see what the state might yet not record.
// latest is the snapshot its latest_ tables hold ("" when none); db is
// the state, in a section.
func (s Model) Build(ctx context.Context, db *sql.DB, base, latest string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	attach := fmt.Sprintf("ATTACH %s AS %s (ROW_GROUP_SIZE %d)", state.SQLString(base), modelAlias, s.RowGroupSize)
	if _, err := conn.ExecContext(ctx, attach); err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	views, err := s.fillModel(ctx, conn, latest)
	if _, derr := conn.ExecContext(context.WithoutCancel(ctx), "USE "+state.AttachedAs+"; DETACH DATABASE IF EXISTS "+modelAlias); err == nil && derr != nil {
		err = derr
	}
	if err == nil {
		err = writeInfo(infoOf(base), Info{Latest: latest, Views: views})
	}
	if err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	crashpoint.Hit("model.built")
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

// Next is where the next model is built, emptied.
func (s Model) Next() string {
	next := s.At.ModelNext()
	for _, p := range []string{next, next + ".wal", infoOf(next)} {
		os.Remove(p)
	}
	return next
}

// Info is what a read model holds: the snapshot of its latest_ tables
// ("" for none) and the key of its views.
type Info struct {
	Latest string `json:"latest"`
	Views  string `json:"views"`
}

// infoOf is where what the model file path holds is written beside it.
func infoOf(path string) string { return path + ".json" }

// writeInfo writes info to path, durable.
func writeInfo(path string, info Info) error {
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	return fileutil.SyncFile(path)
}

// Held is what the read model holds: of built, the model a section built
// ("" for none), else of the public file as model.json says;
// os.ErrNotExist when there is neither, or the public file is gone.
func (s Model) Held(built string) (Info, error) {
	path := s.At.ModelInfo()
	if built != "" {
		path = infoOf(built)
	} else if _, err := os.Stat(s.Public); err != nil {
		return Info{}, os.ErrNotExist
	}
	var info Info
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &info)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		err = fmt.Errorf("read model: what it holds (%s): %w", path, err)
	}
	return info, err
}

// Empty makes a model file at path with empty latest_ tables: the
// read model of a store without a complete snapshot.
func (s Model) Empty(ctx context.Context, db *sql.DB, path string) error {
	conn, done, err := s.attachNew(ctx, db, path)
	if err != nil {
		return err
	}
	defer done()
	return s.createLatest(ctx, conn)
}

// attachNew attaches the model file at path on a connection of db as
// modelAlias; done detaches it and ends the connection.
func (s Model) attachNew(ctx context.Context, db *sql.DB, path string) (conn *sql.Conn, done func(), err error) {
	if conn, err = db.Conn(ctx); err != nil {
		return nil, nil, err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (ROW_GROUP_SIZE %d)", state.SQLString(path), modelAlias, s.RowGroupSize)); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("read model: %w", err)
	}
	return conn, func() {
		conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE IF EXISTS "+modelAlias)
		conn.Close()
	}, nil
}

// createLatest makes the empty latest_ tables of the model attached on
// conn.
func (s Model) createLatest(ctx context.Context, conn *sql.Conn) error {
	for _, t := range s.Tables {
		if _, err := conn.ExecContext(ctx, t.CreateSQL(modelAlias+".latest_"+t.Name)); err != nil {
			return fmt.Errorf("read model: %w", err)
		}
	}
	return nil
}

// FromParquet builds at path a model file whose latest_ tables hold
// complete snapshot id, read from the Parquet tree: when the DuckDB file
// its export built is gone. db is the state, in a section.
func (s Model) FromParquet(ctx context.Context, db *sql.DB, id, path string) error {
	os.Remove(path)
	os.Remove(path + ".wal")
	conn, done, err := s.attachNew(ctx, db, path)
	if err != nil {
		return err
	}
	defer done()
	if err := s.createLatest(ctx, conn); err != nil {
		return err
	}
	s.Log.Warn("building the read model from the Parquet of the latest snapshot", "snapshot", id)
	for _, t := range s.Tables {
		glob := filepath.Join(s.Trees[0].Link, t.Name, tree.Partition(id), "*.parquet")
		q := fmt.Sprintf("INSERT INTO %s.latest_%s BY NAME SELECT * EXCLUDE (_raw) FROM (%s)", modelAlias, t.Name, ParquetRelation(glob))
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("read model: loading %s: %w", t.Name, err)
		}
	}
	_, err = conn.ExecContext(ctx, "CHECKPOINT "+modelAlias)
	return err
}
