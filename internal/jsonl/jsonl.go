// Package jsonl is a file of JSON lines that billsnap appends to (the
// ledger, the record of fix's writes and the record of notifications):
// writers append under an exclusive lock on the file (flock), each line
// synced before the lock is let go; readers take no lock and leave out a
// last line that has no newline yet, so no reader waits for a writer.
// Retention may rewrite a file whole (Rewrite), under the same lock.
package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/billsnap/billsnap/internal/atomicfile"
)

// File is the file at Path.
type File struct {
	Path string
	// Whole makes Append refuse a file whose last line has no newline (a
	// *PartialError) instead of cutting that line off: for a file whose
	// every byte is evidence, where a half line is named, never dropped.
	Whole bool
	// Synced, when set, is called under the file's lock once an Append or
	// a Rewrite has synced what it wrote, with the file's lines as they
	// now stand: what must be recorded of them before the next writer
	// goes on. Its error is the write's.
	Synced func(lines [][]byte) error
}

// PartialError is a file whose last line has no newline: a write cut
// short, or a file cut off in the middle of a line.
type PartialError struct {
	Path  string
	Line  int // 1-based: the line after the last complete one
	Bytes int // the bytes of the half line
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("%s line %d: %d bytes with no newline at the end of the file: a write cut short, or the file cut off in the middle of a line", e.Path, e.Line, e.Bytes)
}

// Lines are the complete lines of the file, oldest first; a missing file
// has none.
func (f File) Lines() ([][]byte, error) {
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return split(b), nil
}

// Read is the complete lines of the file, oldest first, and what follows
// the last newline (nil when the file ends in one); a missing file has
// neither.
func (f File) Read() (lines [][]byte, tail []byte, err error) {
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if whole := complete(b); len(whole) < len(b) {
		tail = b[len(whole):]
	}
	return split(b), tail, nil
}

// complete is b up to its last newline.
func complete(b []byte) []byte { return b[:bytes.LastIndexByte(b, '\n')+1] }

func split(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(complete(b), []byte{'\n'}) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// Append adds the line decide returns, given the lines so far, under the
// file's lock: decide sees what no other writer can change before the
// line is written. A nil line writes nothing. A last line a writer that
// died left without its newline is cut off first (refused when Whole),
// so that the new line starts a line of its own. The line is synced, and
// Synced called, before Append returns.
func (f File) Append(decide func(lines [][]byte) ([]byte, error)) error {
	fh, b, err := f.locked()
	if err != nil {
		return err
	}
	defer fh.Close()
	lines := split(b)
	if whole := complete(b); len(whole) < len(b) {
		if f.Whole {
			return &PartialError{Path: f.Path, Line: len(lines) + 1, Bytes: len(b) - len(whole)}
		}
		if err := fh.Truncate(int64(len(whole))); err != nil {
			return err
		}
	}
	line, err := decide(lines)
	if line == nil || err != nil {
		return err
	}
	if _, err := fh.Write(append(line, '\n')); err != nil {
		return err
	}
	if err := fh.Sync(); err != nil {
		return err
	}
	return f.synced(append(lines, line))
}

// synced calls Synced, when set, with lines.
func (f File) synced(lines [][]byte) error {
	if f.Synced == nil {
		return nil
	}
	return f.Synced(lines)
}

// locked is the file, open for appending and locked (lock), and what it
// holds; the caller closes it, which lets go of the lock.
func (f File) locked() (*os.File, []byte, error) {
	fh, err := f.lock()
	if err != nil {
		return nil, nil, err
	}
	b, err := os.ReadFile(f.Path)
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	return fh, b, nil
}

// opened is called when lock has opened the file, before it waits for
// its lock (tests hold it there).
var opened = func() {}

// lock opens the file for appending, creating it, and takes its lock. A
// file that Rewrite replaced while this waited for the lock is let go,
// and the new one opened and locked instead.
func (f File) lock() (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return nil, err
	}
	for {
		fh, err := os.OpenFile(f.Path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		opened()
		if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX); err != nil {
			fh.Close()
			return nil, fmt.Errorf("lock: %w", err)
		}
		held, err1 := fh.Stat()
		now, err2 := os.Stat(f.Path)
		if err := errors.Join(err1, err2); err != nil && !errors.Is(err2, os.ErrNotExist) {
			fh.Close()
			return nil, err
		}
		if err2 == nil && os.SameFile(held, now) {
			return fh, nil
		}
		fh.Close() // replaced (or removed) while we waited
	}
}

// Rewrite replaces the file's lines with those rewrite returns, given the
// complete lines so far, under the file's lock: the new lines are written
// to a file beside it, synced, and renamed over it, so a reader sees the
// old lines or the new ones, and an Append waiting for the lock appends
// to the new file. Synced is called once the new file is in place; a
// last line without its newline is cut off (refused when Whole).
func (f File) Rewrite(rewrite func(lines [][]byte) ([][]byte, error)) error {
	fh, b, err := f.locked()
	if err != nil {
		return err
	}
	defer fh.Close()
	lines := split(b)
	if whole := complete(b); f.Whole && len(whole) < len(b) {
		return &PartialError{Path: f.Path, Line: len(lines) + 1, Bytes: len(b) - len(whole)}
	}
	lines, err = rewrite(lines)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	for _, l := range lines {
		out.Write(l)
		out.WriteByte('\n')
	}
	if err := atomicfile.Write(f.Path, out.Bytes()); err != nil {
		return err
	}
	return f.synced(lines)
}
