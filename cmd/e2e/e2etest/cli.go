package e2etest

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// ExportKey is the sandbox's API key, which the tests' runs are given.
const ExportKey = sandboxtest.Key

// SoakFaults are the fault soak's rates per request: 5% server errors
// (500, 502, 503), 2% 429 with Retry-After, 1% bodies cut short, 1%
// connections reset, and up to 2 ms of jitter.
const SoakFaults = "500=0.03,502=0.01,503=0.01,429=0.02,retry-after=2s,truncate=0.01,reset=0.01,jitter=2ms"

// CLI runs billsnap with args, the sandbox's URLs and key in the
// environment, a fake clock (retries and re-walks wait no real time), and
// the tests' lake (TestLake).
func CLI(t *testing.T, srv *sandbox.Server, args ...string) (int, string, string) {
	t.Helper()
	vars := map[string]string{"BILLSNAP_API_KEY": ExportKey, "BILLSNAP_BASE_URL": srv.BaseURL(), "BILLSNAP_FRONT_URL": srv.FrontURL()}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, &out, &errb, cli.Options{
		Getenv: func(k string) string { return vars[k] }, Clock: fakeclock.New(time.Now()), Lake: TestLake(), Tune: OneThread})
	return code, out.String(), errb.String()
}

// RunWith runs billsnap in-process with args and the environment getenv,
// as billsnap itself would run.
func RunWith(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return cli.Run(ctx, args, stdout, stderr, cli.Options{Getenv: getenv})
}

// RunTuned is RunWith with the store's DuckDB queries on one thread
// (OneThread), as CLI runs billsnap.
func RunTuned(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return cli.Run(ctx, args, stdout, stderr, cli.Options{Getenv: getenv, Tune: OneThread})
}

// OneThread runs the store's DuckDB queries on one thread, as the tests
// of snapshot, reconcile and the workspace do: the tests' data is small,
// and DuckDB's second thread costs CPU it does not save. The heavy tier's
// crash matrix and soaks run billsnap itself, on the default.
func OneThread(c *config.Config) { c.DuckDB.Threads = 1 }

// OpenDB opens the read model of the store at dir, read-only.
func OpenDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	return ReadOnly(t, filepath.Join(dir, "billsnap.duckdb"))
}

const IDsHash = "count(*), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256(''))"

// RunOut is a command's stdout; it fails the test unless it exits 0.
func RunOut(t *testing.T, srv *sandbox.Server, args ...string) string {
	t.Helper()
	code, out, stderr := CLI(t, srv, args...)
	if code != job.ExitOK {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	return out
}

func NoEnv(string) string { return "" }

// ReadFile is a file's text; an XLSX workbook's is its XML parts'.
func ReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".xlsx") {
		return string(b)
	}
	return string(UnzipAll(t, b))
}
