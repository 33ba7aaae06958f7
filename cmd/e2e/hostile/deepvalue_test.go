//go:build heavy

package hostile

import (
	"syscall"
	"testing"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/hostile"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A service that sends values nested a million levels deep (the first
// customer of every page) neither fails an export nor the exports after
// it, which once ran DuckDB's JSON parser out of memory, and an export
// stays within 600 MB of peak RSS (issue 62's bound for the attack; an
// export of this size takes about a third of it).
func TestAMillionLevelsDeepStayWithinBounds(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 60, Planted: 0}, "")
	hs := hostile.Start(t, sb, hostile.Attacks{Depth: 1_000_000})
	dir := t.TempDir()
	for i := range 2 {
		code, _, stderr, state := runHostileState(t, hs, "export", "--out", dir, "--progress", "none")
		if code != job.ExitOK {
			t.Fatalf("export %d: exit %d, want 0\n%s", i+1, code, stderr)
		}
		ru, ok := state.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Fatalf("export %d: no resource use of the child (%T)", i+1, state.SysUsage())
		}
		if ru.Maxrss > 600*1024 {
			t.Errorf("export %d: peak RSS %d MB, over 600 MB", i+1, ru.Maxrss/1024)
		}
		t.Logf("export %d: peak RSS %d MB", i+1, ru.Maxrss/1024)
	}
}
