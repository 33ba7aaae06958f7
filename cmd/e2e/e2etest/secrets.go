package e2etest

import (
	"archive/zip"
	"bytes"
	"database/sql"
	"encoding/base64"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// KeyStep is a run of billsnap in the key test: the sandbox's faults, more
// environment, the arguments and the exit code wanted.
type KeyStep struct {
	Faults string
	Env    []string
	Args   []string
	Code   int
}

// KeyAppearsInNoOutput runs the key test's steps with bin against
// sandboxes of customers customers; more steps go before the read
// commands.
func KeyAppearsInNoOutput(t *testing.T, bin string, customers int, more []KeyStep) string {
	var foreign atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { foreign.Add(1) }))
	defer other.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cfg := filepath.Join(dir, "billsnap.yml")
	os.WriteFile(cfg, []byte("retry: {max_attempts: 10}\nmetrics_file: billsnap.prom\n"), 0o644)
	wrongKey := "wrong-key-0b1e-" + strings.Repeat("q", 8)
	steps := []KeyStep{
		{SoakFaults, nil, []string{"run", "--format", "md,html,xlsx,csv,json"}, job.ExitMaterial},
		{"keylink=Customers@1,keylink=Invoices@2", nil, []string{"export"}, job.ExitOK},
		{"echo=0.05", nil, []string{"export"}, job.ExitFailure},
		{"foreign=Customers@1,foreign-host=" + other.URL, nil, []string{"export"}, job.ExitFailure},
		{"", []string{"BILLSNAP_API_KEY=" + wrongKey}, []string{"export"}, job.ExitFailure},
	}
	steps = append(steps, more...)
	steps = append(steps, []KeyStep{
		{"", nil, []string{"status"}, job.ExitOK},
		{"", nil, []string{"query", "SELECT * FROM snapshots"}, job.ExitOK},
		{"", nil, []string{"check-config"}, job.ExitOK},
	}...)
	var outputs bytes.Buffer
	for _, step := range steps {
		srv := sandboxtest.Start(t, sandbox.Options{Seed: 71, Customers: customers, Planted: 1}, step.Faults)
		args := []string{step.Args[0], "--out", out}
		if step.Args[0] != "query" {
			args = append(args, "--config", cfg)
		}
		cmd := exec.Command(bin, append(args, step.Args[1:]...)...)
		cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY="+ExportKey, "BILLSNAP_BASE_URL="+srv.BaseURL(),
			"BILLSNAP_FRONT_URL="+srv.FrontURL(), "BILLSNAP_LOG_LEVEL=debug", "BILLSNAP_OUT=")
		cmd.Env = append(cmd.Env, step.Env...)
		b, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != step.Code {
			t.Errorf("%v %s: exit %d, want %d:\n%s", step.Args, step.Faults+strings.Join(step.Env, " "), code, step.Code, b)
		}
		outputs.Write(b)
	}
	if foreign.Load() != 0 {
		t.Errorf("the other host got %d requests", foreign.Load())
	}
	forms := append(SecretForms(ExportKey), SecretForms(wrongKey)...)
	slices.Sort(forms)
	forms = slices.Compact(forms)
	for _, form := range forms {
		if bytes.Contains(outputs.Bytes(), []byte(form)) {
			t.Errorf("stdout or stderr holds the key as %q", form)
		}
	}
	searchFiles(t, out, forms)
	searchDuckDB(t, out, forms)
	return outputs.String()
}

func UnzipAll(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(&all, rc)
		rc.Close()
	}
	return all.Bytes()
}

// SecretForms are the ways a key could leak: as itself, in the
// Authorization header's base64 (padded, unpadded, URL alphabet) and
// escaped for a URL.
func SecretForms(key string) []string {
	b := []byte(key)
	return []string{key, base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), url.QueryEscape(key)}
}

// searchFiles fails the test if a file under dir other than DuckDB's and
// Parquet (searched through SQL) holds one of forms; an XLSX is searched
// unzipped.
func searchFiles(t *testing.T, dir string, forms []string) {
	t.Helper()
	seen := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasSuffix(path, ".parquet") || strings.Contains(path, "billsnap.duckdb") {
			return err
		}
		seen++
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(path, ".xlsx") {
			b = UnzipAll(t, b)
		}
		for _, s := range forms {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the key as %q", path, s)
			}
		}
		return nil
	})
	if seen < 5 {
		t.Errorf("only %d report and metrics files to search", seen)
	}
}

// searchDuckDB fails the test if a row of a table or view of the DuckDB
// file (the views read the records and the Parquet trees), or a row of a
// Parquet file, holds one of forms in any column. Each table is read once:
// a count per form.
func searchDuckDB(t *testing.T, dir string, forms []string) {
	t.Helper()
	WithDB(t, dir, func(db *sql.DB) {
		rows, err := db.Query("SELECT table_name FROM information_schema.tables")
		if err != nil {
			t.Fatal(err)
		}
		var from []string
		for rows.Next() {
			var name string
			rows.Scan(&name)
			from = append(from, `"`+name+`"`)
		}
		rows.Close()
		from = append(from, "read_parquet('"+filepath.Join(dir, "parquet", "*", "*", "*.parquet")+"', union_by_name = true)")
		if len(from) < 20 {
			t.Fatalf("only %d tables to search", len(from))
		}
		counts := make([]string, len(forms))
		args := make([]any, len(forms))
		dest := make([]any, len(forms))
		n := make([]int, len(forms))
		for i, s := range forms {
			counts[i], args[i], dest[i] = "count(*) FILTER (WHERE contains(v, ?))", s, &n[i]
		}
		for _, f := range from {
			q := "SELECT " + strings.Join(counts, ", ") + " FROM (SELECT CAST(r AS VARCHAR) AS v FROM " + f + " AS r)"
			if err := db.QueryRow(q, args...).Scan(dest...); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for i, s := range forms {
				if n[i] > 0 {
					t.Errorf("%d rows of %s hold the key as %q", n[i], f, s)
				}
			}
		}
	})
}
