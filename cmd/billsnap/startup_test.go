//go:build heavy

package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
)

// initLine is a line of GODEBUG=inittrace=1: a package's init, its clock
// time and what it allocated.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// maxInitBytes is the most any package's init may allocate: every command,
// --help included, pays for every init of the binary.
const maxInitBytes = 1 << 20

// Start-up is cheap: no package init of billsnap as built for users (no
// build tags) allocates a megabyte, read from the runtime's own trace.
func TestNoPackageInitAllocatesAMegabyte(t *testing.T) {
	bin := e2etest.BinaryWithTags(t, "")
	cmd := exec.Command(bin, "--help")
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("billsnap --help: %v: %s", err, out)
	}
	inits, total := 0, 0
	seen := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		inits++
		seen[m[1]] = true
		bytes, _ := strconv.Atoi(m[2])
		total += bytes
		if bytes > maxInitBytes {
			t.Errorf("init of %s allocates %d bytes, over %d", m[1], bytes, maxInitBytes)
		}
	}
	if inits < 100 || !seen["github.com/billsnap/billsnap/workspace"] || !seen["github.com/duckdb/duckdb-go/v2"] {
		t.Fatalf("the trace has %d inits, without the workspace's or DuckDB's: is it the binary's?\n%s", inits, out)
	}
	t.Logf("%d inits allocate %d bytes", inits, total)
}
