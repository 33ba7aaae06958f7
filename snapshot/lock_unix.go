//go:build unix

package snapshot

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// lockDir takes the inter-process lock on dir, so that one billsnap at a
// time writes there. The kernel releases it when the process ends, crash
// included, so a lock is never stale.
func lockDir(path string, now time.Time) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		return nil, fmt.Errorf("%s is held by another billsnap (%s)", path, strings.TrimSpace(string(holder)))
	}
	f.Truncate(0)
	fmt.Fprintf(f, "pid %d, since %s\n", os.Getpid(), now.UTC().Format(time.RFC3339))
	return f, nil
}
