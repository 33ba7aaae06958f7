//go:build heavy

package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// A closed snapshot's Parquet replaced by a valid Parquet file with other
// amounts is noticed before it is trusted (issue 62, item 6): evidence
// writes no pack, reconcile --period of the closed period refuses, and
// status --verify names the file; each exit 1.
func TestATamperedSnapshotIsRefusedBeforeItIsTrusted(t *testing.T) {
	t.Parallel()
	srv, dir, cfg, period := closedStore(t)
	files, _ := filepath.Glob(filepath.Join(dir, "parquet", "invoices", "*", "part-00000.parquet"))
	if len(files) != 1 {
		t.Fatalf("want the one snapshot's invoices, got %v", files)
	}
	tenfold(t, files[0])
	rel, _ := filepath.Rel(dir, files[0])

	pack := filepath.Join(t.TempDir(), "pack.zip")
	code, out, stderr := e2etest.CLI(t, srv, "evidence", "--config", cfg, "--period", period, "-o", pack)
	if code != job.ExitFailure || !strings.Contains(stderr, rel+" does not hash to the snapshot's manifest: SHA-256 ") {
		t.Errorf("evidence of a tampered snapshot: exit %d: %s %s", code, out, stderr)
	}
	if _, err := os.Stat(pack); err == nil {
		t.Errorf("evidence wrote %s from a tampered snapshot", pack)
	}
	code, out, stderr = e2etest.CLI(t, srv, "reconcile", "--out", dir, "--period", period)
	if code != job.ExitFailure || !strings.Contains(stderr, rel+" does not hash to the snapshot's manifest") {
		t.Errorf("reconcile --period %s (closed) of a tampered snapshot: exit %d: %s", period, code, stderr)
	}
	code, out, stderr = e2etest.CLI(t, srv, "status", "--verify", "--out", dir)
	if code != job.ExitFailure || !strings.Contains(out, "DIFFERS  "+rel+": SHA-256 ") || !strings.Contains(stderr, "1 Parquet file differs") {
		t.Errorf("status --verify of a tampered snapshot: exit %d: %s %s", code, out, stderr)
	}
	if strings.Count(out, "DIFFERS") != 1 {
		t.Errorf("status --verify names more than the file changed:\n%s", out)
	}
}
