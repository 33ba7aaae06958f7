// Package state is billsnap's state: a DuckDB file only billsnap opens,
// changed in sections that are all or nothing. It knows no table of the
// state.
//
// [File.Update] runs a section under the state lock, on a copy of the
// state that is renamed over it only when the section succeeds. A
// [Tx] is a value of its own: its database, and what it built, held
// until it commits or aborts through its hooks ([Tx.BeforeCommit],
// [Tx.OnCommit], [Tx.OnAbort]).
//
// An [Engine] is the DuckDB instance a process's sections and readings run
// in: a section's statements on one thread, a reading's on as many as
// duckdb.threads allows.
//
// And what they stand on: the inter-process locks ([Lock], [BusyError]);
// sweeping what ended processes left ([SweepEnded]); DuckDB's quoting
// ([QuoteIdent], [SQLString]); and its out-of-memory error
// ([OutOfMemory]), a statement that changed nothing, which the loader and
// reconcile's rules run again under more memory or fewer threads.
package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/internal/fileutil"
)

// File is the state's file, the lock held through each section of it,
// and the engine its sections run in.
type File struct {
	Path   string        // DIR/.billsnap/state.duckdb
	Lock   string        // DIR/.billsnap/state.lock
	Wait   time.Duration // lock_wait: a section waits this long at the least (LeastWait)
	Engine *Engine
}

// LeastWait is the least a section of the state waits for another
// billsnap's: sections are brief (a reconciliation's length at most), and
// lock_wait is about the export lock.
const LeastWait = 5 * time.Minute

// BlockSize is the block size of the state's file: its tables are small,
// and with DuckDB's default (256 KiB) a state of a few thousand rows is a
// 4–5 MB file, which every section copies and syncs.
const BlockSize = 16 << 10

// Tx is one section of the state under way, a transaction on a copy of
// the state file: its database (the copy, attached as AttachedAs) and
// what is to happen when it commits or aborts. What a section builds beside the state (a read
// model, the records) is held by the hooks its builder adds, so that
// nothing of one section outlives it.
type Tx struct {
	DB      *sql.DB
	prepare []func() error
	commit  []func() error
	abort   []func()
}

// BeforeCommit adds fn to what runs once the section's work succeeded,
// before its copy replaces the state (a marker that what it built is to
// be shown, say); an error of fn aborts the section.
func (s *Tx) BeforeCommit(fn func() error) { s.prepare = append(s.prepare, fn) }

// OnCommit adds fn to what runs once the section's copy has replaced the
// state, in the order added; the first error stops them and is Update's.
func (s *Tx) OnCommit(fn func() error) { s.commit = append(s.commit, fn) }

// OnAbort adds fn to what runs when the section fails, before its copy is
// removed, in the order added.
func (s *Tx) OnAbort(fn func()) { s.abort = append(s.abort, fn) }

// TakeLock takes the state's lock, waiting for another billsnap's
// section at least LeastWait.
func (f File) TakeLock() (*os.File, error) {
	lock, err := Lock(f.Lock, max(f.Wait, LeastWait))
	if err != nil {
		return nil, fmt.Errorf("billsnap's state: %w", err)
	}
	return lock, nil
}

// Update runs fn in a section: under the state lock, on a copy of the
// state that replaces it (renamed over it) only when fn succeeds; the
// section's OnCommit hooks run after that, its OnAbort hooks when it
// fails. So a section is all or nothing, and the state file is never
// written in place: a DuckDB checkpoint rewrites the file's metadata
// block in place, and a process killed in the middle of that write leaves
// a block whose checksum no longer matches ("Corrupt database file").
func (f File) Update(ctx context.Context, fn func(*Tx) error) error {
	lock, err := f.TakeLock()
	if err != nil {
		return err
	}
	defer lock.Close()
	next := f.Path + ".next"
	sec := &Tx{}
	if err := f.run(ctx, sec, next, fn); err != nil {
		for _, h := range sec.abort {
			h()
		}
		os.Remove(next)
		os.Remove(next + ".wal")
		return err
	}
	crashpoint.Hit("state.written")
	for _, h := range sec.commit {
		if err := h(); err != nil {
			return err
		}
	}
	return nil
}

// run runs fn on a copy of the state at next and, when it succeeds,
// renames the copy over the state.
func (f File) run(ctx context.Context, sec *Tx, next string, fn func(*Tx) error) error {
	db, err := f.openCopy(ctx, next)
	if err != nil {
		return err
	}
	sec.DB = db
	err = fn(sec)
	if cerr := f.Engine.End(ctx, db); err == nil {
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
	for _, h := range sec.prepare {
		if err := h(); err != nil {
			return err
		}
	}
	if err := fileutil.SyncFile(next); err != nil {
		return fmt.Errorf("billsnap's state: %w", err)
	}
	if err := os.Rename(next, f.Path); err != nil {
		return fmt.Errorf("billsnap's state: %w", err)
	}
	fileutil.SyncDir(filepath.Dir(f.Path))
	return nil
}

// openCopy opens a copy of the state at next for a section: a copy of
// the file, or a new file when there is no state yet. A state with blocks
// of another size (a store of a billsnap before) is copied table by table
// into a new file of BlockSize blocks instead, once.
func (f File) openCopy(ctx context.Context, next string) (*sql.DB, error) {
	os.Remove(next)
	os.Remove(next + ".wal")
	err := fileutil.CopyFile(f.Path, next, false)
	if errors.Is(err, os.ErrNotExist) {
		return f.Engine.Open(next, BlockSize)
	}
	if err != nil {
		return nil, fmt.Errorf("billsnap's state: %w", err)
	}
	db, err := f.Engine.Open(next, 0)
	if err != nil {
		return nil, err
	}
	var size int
	err = db.QueryRowContext(ctx, "SELECT block_size FROM pragma_database_size() WHERE database_name = ?", AttachedAs).Scan(&size)
	if err != nil {
		f.Engine.End(ctx, db)
		return nil, err
	}
	if size == BlockSize {
		return db, nil
	}
	if err := f.Engine.End(ctx, db); err != nil {
		return nil, err
	}
	os.Remove(next)
	os.Remove(next + ".wal")
	return f.compact(ctx, next)
}

// compact copies the state into a new file at next with blocks of
// BlockSize.
func (f File) compact(ctx context.Context, next string) (*sql.DB, error) {
	db, err := f.Engine.Open(next, BlockSize)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err == nil {
		for _, q := range []string{fmt.Sprintf("ATTACH %s AS old_state (READ_ONLY)", SQLString(f.Path)),
			"COPY FROM DATABASE old_state TO " + AttachedAs, "DETACH old_state"} {
			if _, err = conn.ExecContext(ctx, q); err != nil {
				break
			}
		}
		conn.Close()
	}
	if err != nil {
		f.Engine.End(ctx, db)
		return nil, fmt.Errorf("billsnap's state: copying it to blocks of %d bytes: %w", BlockSize, err)
	}
	return db, nil
}
