//go:build crashpoints

package crashpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

var (
	mu     sync.Mutex
	hits   = map[string]int{}
	misses = map[string]int{}
	panics = map[string]int{}

	traceFile *os.File
)

// Hit kills the process with SIGKILL at the moment BILLSNAP_CRASH_AT
// names, or panics at the one BILLSNAP_PANIC_AT names; it first appends
// name to the trace.
func Hit(name string) {
	trace(name)
	if armed("BILLSNAP_PANIC_AT", name, panics, false) {
		panic("crashpoint " + name + " (BILLSNAP_PANIC_AT)")
	}
	if !armed("BILLSNAP_CRASH_AT", name, hits, false) {
		return
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}

// trace appends name, a line, to the file BILLSNAP_CRASH_TRACE names: a
// write to the kernel before the moment goes on, so the file shows how far
// a process got however it was killed.
func trace(name string) {
	path := os.Getenv("BILLSNAP_CRASH_TRACE")
	if path == "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if traceFile == nil {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			panic("crashpoint: BILLSNAP_CRASH_TRACE: " + err.Error())
		}
		traceFile = f
	}
	traceFile.WriteString(name + "\n")
}

// Err returns ENOSPC from the moment BILLSNAP_FAIL_AT names on.
func Err(name string) error {
	if !armed("BILLSNAP_FAIL_AT", name, misses, true) {
		return nil
	}
	return fmt.Errorf("%s (BILLSNAP_FAIL_AT): %w", name, syscall.ENOSPC)
}

// armed counts a meeting of name and reports whether the variable env
// names it at this count (or, when after, at an earlier one).
func armed(env, name string, count map[string]int, after bool) bool {
	want, n, ok := parse(os.Getenv(env))
	if !ok || want != name {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	count[name]++
	return count[name] == n || (after && count[name] > n)
}

// parse reads name[#n].
func parse(v string) (string, int, bool) {
	if v == "" {
		return "", 0, false
	}
	name, num, counted := strings.Cut(v, "#")
	if !counted {
		return name, 1, true
	}
	n, err := strconv.Atoi(num)
	return name, n, err == nil && n > 0
}
