package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/billsnap/billsnap/internal/crashpoint"
)

// stateLockWait is the least a section of the state waits for another
// billsnap's: sections are brief (a reconciliation's length at most), and
// lock_wait is about the export lock.
const stateLockWait = 5 * time.Minute

// Update runs fn on billsnap's state, a database only billsnap opens, in a
// section: under the state lock, on a copy of the state that replaces it
// (renamed over it) only when fn succeeds; what the section built (the
// records, a read model) is shown after that (publishPending). So a
// section is all or nothing, and the state file is never written in
// place: a DuckDB checkpoint rewrites the file's metadata block in place,
// and a process killed in the middle of that write leaves a block whose
// checksum no longer matches ("Corrupt database file"). A section first
// finishes a publish that a crash cut short (finishPublish). Sections are
// brief; an export holds one at its start and one to publish, a
// reconciliation one.
func (s *Store) Update(ctx context.Context, fn func(db *sql.DB) error) error {
	lock, err := lockDir(s.at.StateLock(), max(s.lockWait, stateLockWait))
	if err != nil {
		return fmt.Errorf("billsnap's state: %w", err)
	}
	defer lock.Close()
	next := s.at.State() + ".next"
	if err := s.section(ctx, next, fn); err != nil {
		s.built, s.publicStale = "", false
		s.retired, s.sweeping = nil, false // the marker stays: the next section sweeps
		s.dropRecords()
		os.Remove(next)
		os.Remove(next + ".wal")
		return err
	}
	crashpoint.Hit("state.written")
	if err := s.publishPending(); err != nil {
		return err
	}
	s.removeRetired()
	return nil
}

// section runs fn on a copy of the state at next and, when it succeeds,
// renames the copy over the state.
func (s *Store) section(ctx context.Context, next string, fn func(db *sql.DB) error) error {
	db, err := s.openState(ctx, next)
	if err != nil {
		return err
	}
	err = MigrateState(ctx, db)
	if err == nil {
		err = s.sweepHistory(ctx, db)
		s.sweepLeftovers()
	}
	var upgraded bool
	if err == nil {
		upgraded, err = s.upgradeHistory(ctx, db)
	}
	if err == nil && upgraded {
		err = s.syncModel(ctx, db)
	}
	if err == nil {
		err = s.finishPublish(ctx, db)
	}
	if err == nil {
		err = fn(db)
	}
	if cerr := s.state.end(ctx, db); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// A checkpoint that failed at the close leaves committed changes in
	// the WAL, which the rename would leave behind.
	if _, err := os.Stat(next + ".wal"); err == nil {
		return fmt.Errorf("billsnap's state: %s still has a WAL after its close", next)
	}
	if err := s.markPending(); err != nil {
		return err
	}
	if err := syncFile(next); err != nil {
		return fmt.Errorf("billsnap's state: %w", err)
	}
	if err := os.Rename(next, s.at.State()); err != nil {
		return fmt.Errorf("billsnap's state: %w", err)
	}
	syncDir(s.at.Private())
	return nil
}

// Change is Update for a change of the state that readers should see: after
// fn, the read model is published again with the state's tables as they
// are (the findings of a reconciliation, a pruned manifest).
func (s *Store) Change(ctx context.Context, fn func(db *sql.DB) error) error {
	return s.Update(ctx, func(db *sql.DB) error {
		if err := fn(db); err != nil {
			return err
		}
		return s.syncModel(ctx, db)
	})
}

// stateBlockSize is the block size of the state's file: its tables are
// small, and with DuckDB's default (256 KiB) a state of a few thousand
// rows is a 4–5 MB file, which every section copies and syncs.
const stateBlockSize = 16 << 10

// openState opens a copy of the state at next for a section: a copy of
// the file, or a new file when there is no state yet. A state with blocks
// of another size (a store of a billsnap before) is copied table by table
// into a new file of stateBlockSize blocks instead, once.
func (s *Store) openState(ctx context.Context, next string) (*sql.DB, error) {
	os.Remove(next)
	os.Remove(next + ".wal")
	err := copyFile(s.at.State(), next, false)
	if errors.Is(err, os.ErrNotExist) {
		return s.state.open(next, stateBlockSize)
	}
	if err != nil {
		return nil, fmt.Errorf("billsnap's state: %w", err)
	}
	db, err := s.state.open(next, 0)
	if err != nil {
		return nil, err
	}
	var size int
	err = db.QueryRowContext(ctx, "SELECT block_size FROM pragma_database_size() WHERE database_name = ?", attachedAs).Scan(&size)
	if err != nil {
		s.state.end(ctx, db)
		return nil, err
	}
	if size == stateBlockSize {
		return db, nil
	}
	if err := s.state.end(ctx, db); err != nil {
		return nil, err
	}
	os.Remove(next)
	os.Remove(next + ".wal")
	return s.compactState(ctx, next)
}

// compactState copies the state into a new file at next with blocks of
// stateBlockSize.
func (s *Store) compactState(ctx context.Context, next string) (*sql.DB, error) {
	db, err := s.state.open(next, stateBlockSize)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err == nil {
		for _, q := range []string{fmt.Sprintf("ATTACH %s AS old_state (READ_ONLY)", sqlString(s.at.State())),
			"COPY FROM DATABASE old_state TO " + attachedAs, "DETACH old_state"} {
			if _, err = conn.ExecContext(ctx, q); err != nil {
				break
			}
		}
		conn.Close()
	}
	if err != nil {
		s.state.end(ctx, db)
		return nil, fmt.Errorf("billsnap's state: copying it to blocks of %d bytes: %w", stateBlockSize, err)
	}
	return db, nil
}
