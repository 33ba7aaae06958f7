//go:build lake && heavy && !race

// These tests publish to a lake, which only the heavy tier without -race
// links (e2etest/drivers.go).

package lake

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake/laketest"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// check-config looks at parquet.url: a lake it can write (a probe object
// written and removed, none left) is said to be so; one it cannot is
// exit 2, one line naming parquet.url and what failed.
func TestCheckConfigProbesTheLake(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 90, Customers: 5}, "")
	dir := t.TempDir()
	folder := filepath.Join(dir, "lake")
	for _, url := range []string{"file://" + folder, laketest.Serve(t, "probe")} {
		code, stdout, stderr := e2etest.CLI(t, srv, "check-config", "--out", filepath.Join(dir, "out"), "--parquet-url", url)
		if code != job.ExitOK || !strings.Contains(stdout, "lake:      "+url) || !strings.Contains(stdout, "reachable and writable") {
			t.Errorf("%s: exit %d\n%s%s", url, code, stdout, stderr)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(folder, "_billsnap")); len(left) > 0 {
		t.Errorf("the probe left %s", left[0].Name())
	}
	notAFolder := filepath.Join(dir, "file")
	if err := os.WriteFile(notAFolder, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + notAFolder
	code, _, stderr := e2etest.CLI(t, srv, "check-config", "--out", filepath.Join(dir, "out"), "--parquet-url", url)
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != job.ExitUsage || len(lines) > 2 || !strings.Contains(stderr, "parquet.url "+url) {
		t.Errorf("a lake that is a file: exit %d\n%s", code, stderr)
	}
}
