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
)

// Hit kills the process with SIGKILL at the moment BILLSNAP_CRASH_AT
// names, or panics at the one BILLSNAP_PANIC_AT names.
func Hit(name string) {
	if armed("BILLSNAP_PANIC_AT", name, panics, false) {
		panic("crashpoint " + name + " (BILLSNAP_PANIC_AT)")
	}
	if !armed("BILLSNAP_CRASH_AT", name, hits, false) {
		return
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
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
