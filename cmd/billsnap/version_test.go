package main

import (
	"bytes"
	"context"
	"database/sql"
	"runtime"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/job"
)

// billsnap version names billsnap's build, the DuckDB library it runs
// (as DuckDB itself reports it), Go, and where its lake is (linked in,
// in the tests);
// an argument is a usage error.
func TestVersion(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := cli.Run(context.Background(), []string{"version"}, &stdout, &stderr, cli.Options{Lake: e2etest.TestLake()}); code != job.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var duck string
	if err := db.QueryRow("SELECT version()").Scan(&duck); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	want := []string{"billsnap  (devel)", "duckdb    " + duck + " (", "go        " + runtime.Version() + " ", "lake      " + e2etest.TestLake().Where(context.Background())}
	if len(lines) != len(want) {
		t.Fatalf("version printed %q", stdout.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to begin %q", i+1, lines[i], w)
		}
	}
	if code := cli.Main(context.Background(), []string{"version", "now"}, &stdout, &stderr); code != job.ExitUsage {
		t.Errorf("version with an argument: exit %d, want %d", code, job.ExitUsage)
	}
}
