package state

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

func TestLockWaitsForTheHolder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		path, first := heldLock(t)
		go func() {
			time.Sleep(3 * time.Second)
			first.Close()
		}()
		start := time.Now()
		second, err := Lock(path, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		if waited := time.Since(start); waited < 3*time.Second || waited > 3*time.Second+lockPoll {
			t.Errorf("waited %s for a lock released after 3s", waited)
		}
	})
}

func TestLockGivesUpNamingTheHolder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		path, first := heldLock(t)
		defer first.Close()
		start := time.Now()
		_, err := Lock(path, 5*time.Second)
		var busy *BusyError
		if !errors.As(err, &busy) || time.Since(start) != 5*time.Second ||
			!strings.Contains(err.Error(), "held by another billsnap (pid ") || !strings.Contains(err.Error(), "since ") {
			t.Errorf("after %s: %v", time.Since(start), err)
		}
	})
}

// heldLock takes the lock of a new path, and returns the path and the
// lock.
func heldLock(t *testing.T) (string, *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "billsnap.lock")
	f, err := Lock(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return path, f
}

// A holder that died (SIGKILL, no cleanup) leaves its words in the file but
// no lock: the next billsnap takes it at once.
//
// Not parallel: between its fork and exec the holder shares every open
// file of this process, a lock another test holds included, which that
// test's close then does not release until the exec.
func TestLockOfAKilledHolderIsTakenAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "billsnap.lock")
	holder := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$")
	holder.Env = append(os.Environ(), "BILLSNAP_LOCK_HOLDER="+path)
	out, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("holder said %q", line)
	}
	if _, err := Lock(path, 0); err == nil {
		t.Fatal("the lock is not held while the holder lives")
	}
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	before, _ := os.ReadFile(path)
	f, err := Lock(path, 0)
	if err != nil {
		t.Fatalf("the lock of a killed holder: %v", err)
	}
	defer f.Close()
	after, _ := os.ReadFile(path)
	if string(before) == string(after) || !strings.Contains(string(after), fmt.Sprintf("pid %d,", os.Getpid())) {
		t.Errorf("lock file said %q, now %q", before, after)
	}
}

// TestLockHolderProcess is the child of the test above: it takes the lock
// and waits to be killed.
func TestLockHolderProcess(t *testing.T) {
	path := os.Getenv("BILLSNAP_LOCK_HOLDER")
	if path == "" {
		return // only as the child
	}
	if _, err := Lock(path, 0); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	select {}
}
