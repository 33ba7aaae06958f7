// Package jsonl is a file of JSON lines that billsnap only appends to:
// writers append under an exclusive lock on the file (flock), each line
// synced before the lock is let go; readers take no lock and leave out a
// last line that has no newline yet, so no reader waits for a writer.
package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// File is the file at Path.
type File struct{ Path string }

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
// died left without its newline is cut off first, so that the new line
// starts a line of its own. The line is synced before Append returns.
func (f File) Append(decide func(lines [][]byte) ([]byte, error)) error {
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return err
	}
	fh, err := os.OpenFile(f.Path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer fh.Close()
	if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	b, err := os.ReadFile(f.Path)
	if err != nil {
		return err
	}
	if whole := complete(b); len(whole) < len(b) {
		if err := fh.Truncate(int64(len(whole))); err != nil {
			return err
		}
	}
	line, err := decide(split(b))
	if line == nil || err != nil {
		return err
	}
	if _, err := fh.Write(append(line, '\n')); err != nil {
		return err
	}
	return fh.Sync()
}
