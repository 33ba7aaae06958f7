//go:build heavy

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// Reconcile's exit codes: no store is a usage error; planted data is
// material (exit 3), clean data is not (exit 0: the shared clean export,
// reconciled by name as the previous snapshot, checkSnapshotNames); a bad
// flag is neither.
func TestReconcileExitCodes(t *testing.T) {
	t.Parallel()
	clean, dir := e2etest.Exported(t, e2etest.CleanOptions)
	empty := t.TempDir()
	if code, _, stderr := e2etest.CLI(t, clean, "reconcile", "--out", empty); code != job.ExitUsage || !strings.Contains(stderr, "--out "+empty+" holds no billsnap store") {
		t.Errorf("reconcile before any export: exit %d, %s", code, stderr)
	}
	planted := sandboxtest.Start(t, sandbox.Options{Seed: 72, Customers: 30, Planted: 1}, "")
	code, out, stderr := e2etest.CLI(t, planted, "run", "--out", dir, "--progress", "none")
	if code != job.ExitMaterial || !strings.Contains(out, "# billsnap: MATERIAL (exit 3)") || !strings.Contains(stderr, "material findings in snapshot") {
		t.Errorf("planted data: exit %d\n%s%s", code, out, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--period", "Oct"}, `period "Oct": want a month as YYYY-MM`},
		{[]string{"--as-of", "yesterday"}, "--as-of: want RFC 3339"},
		{[]string{"--format", "xml"}, "--format must be text, json or csv"},
		{[]string{"--waivers", filepath.Join(dir, "none.yml")}, "waivers: open"},
	} {
		code, _, stderr := e2etest.CLI(t, planted, append([]string{"reconcile", "--out", dir}, tc.args...)...)
		if code == job.ExitOK || code == job.ExitMaterial || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, stderr)
		}
	}
	checkSnapshotNames(t, planted, dir)
}
