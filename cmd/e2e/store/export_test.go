package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// checkAgainstKey checks every latest_ view and every published Parquet
// table against the sandbox's answer key.
func checkAgainstKey(t *testing.T, dir string, key sandbox.AnswerKey) {
	t.Helper()
	db := e2etest.OpenDB(t, dir)
	for table, want := range key.Tables {
		for _, from := range []string{"latest_" + table,
			fmt.Sprintf("read_parquet('%s')", filepath.Join(dir, "parquet", table, "*", "*.parquet"))} {
			var n int
			var h string
			if err := db.QueryRow("SELECT "+e2etest.IDsHash+" FROM "+from).Scan(&n, &h); err != nil {
				t.Fatal(err)
			}
			if n != want.Count || h != want.IDsSHA256 {
				t.Errorf("%s: %d rows, hash %.12s; answer key %d, %.12s", from, n, h, want.Count, want.IDsSHA256)
			}
		}
	}
}

// checkNothingPublished checks a failed export left no Parquet, no
// complete snapshot and no staging, and recorded the failure.
func checkNothingPublished(t *testing.T, dir string) {
	t.Helper()
	if files, _ := filepath.Glob(filepath.Join(dir, "parquet", "*", "*")); len(files) != 0 {
		t.Errorf("published after a failure: %v", files)
	}
	if _, err := os.Stat(filepath.Join(dir, ".staging")); !os.IsNotExist(err) {
		t.Errorf("staging left: %v", err)
	}
	db := e2etest.OpenDB(t, dir)
	var latest, failed int
	db.QueryRow("SELECT (SELECT count(*) FROM latest_snapshot), (SELECT count(*) FROM snapshots WHERE status = 'failed')").Scan(&latest, &failed)
	if latest != 0 || failed != 1 {
		t.Errorf("latest snapshots %d, failed %d", latest, failed)
	}
}

// faultCase is an export of a sandbox with faults: its exit code and, for
// a failure, what its message must say.
type faultCase struct {
	faults string
	code   int
	stderr string
}

func exportUnderFaults(t *testing.T, cases []faultCase) {
	for _, tc := range cases {
		t.Run(tc.faults, func(t *testing.T) {
			srv := sandboxtest.Start(t, sandbox.Options{Seed: 51, Customers: 200, Planted: 1}, tc.faults)
			dir := t.TempDir()
			code, stdout, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none")
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d (want %d), stderr:\n%s\nstdout:\n%s", code, tc.code, stderr, stdout)
			}
			if strings.Contains(stdout+stderr, e2etest.ExportKey) {
				t.Error("the key appears in the output")
			}
			switch tc.code {
			case job.ExitOK:
				checkAgainstKey(t, dir, srv.AnswerKey())
			case job.ExitFailure:
				checkNothingPublished(t, dir)
			}
		})
	}
}
