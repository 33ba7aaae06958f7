//go:build unix

package state

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// lockPoll is how often a waiting billsnap tries the lock again.
const lockPoll = 250 * time.Millisecond

// Lock takes the inter-process lock of the file at path (an output
// directory's, or the state's), waiting up to wait for another billsnap
// to let it go. The kernel releases the lock when its holder ends, crash
// included, so a lock is never stale: what a dead holder wrote into the
// file is simply overwritten.
func Lock(path string, wait time.Duration) (*os.File, error) {
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			f.Truncate(0)
			fmt.Fprintf(f, "pid %d, since %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
			return f, nil
		}
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !time.Now().Before(deadline) {
			holder, _ := os.ReadFile(path)
			return nil, &BusyError{Path: path, Holder: strings.TrimSpace(string(holder)), Waited: wait}
		}
		time.Sleep(min(lockPoll, time.Until(deadline)))
	}
}

// BusyError is an output directory another billsnap holds.
type BusyError struct {
	Path   string
	Holder string // "pid 123, since 2026-11-22T03:00:00Z"
	Waited time.Duration
}

// Refused says a job that met this error was refused, not failed.
func (e *BusyError) Refused() bool { return true }

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is held by another billsnap (%s); waited %s (lock_wait)", e.Path, e.Holder, e.Waited)
}

// ProcessRuns tells whether process pid runs (0: no process).
func ProcessRuns(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
