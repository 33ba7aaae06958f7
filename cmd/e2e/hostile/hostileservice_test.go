package hostile

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/hostile"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A hostile service (sandbox/hostile) in front of the sandbox breaks no
// promise of `billsnap run`, the real binary as a child process: names
// that are not valid UTF-8 (or hold half a surrogate pair) are repaired
// and counted, every customer kept;
// formula-looking values that reach findings.csv (invoice lines' IDs) are
// in no CSV cell live, of the reports or of the workspace's download; a value nested 200,000 levels deep neither crashes
// nor hangs the export: it is untyped (NULL in its column, counted) and
// kept in _raw.
func TestAHostileServiceBreaksNoPromise(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Start(t, sandbox.Options{Seed: 2, Customers: 20, Planted: 2}, "")
	hs := hostile.Start(t, sb, hostile.Attacks{InvalidUTF8: true, Formulas: true, Depth: 200_000})
	dir := t.TempDir()
	code, stdout, stderr := runHostile(t, hs, "run", "--out", dir, "--progress", "none")
	if code != job.ExitMaterial { // the planted findings are material, as without the hostile service
		t.Fatalf("run: exit %d, want %d\n%s", code, job.ExitMaterial, stderr)
	}
	customers := len(sb.Dataset().Customers)
	checkRepairedNames(t, dir, customers, stdout, stderr)
	checkDeepValueKept(t, dir, stdout)
	checkNoLiveFormula(t, dir, hs.Lines)
	download := filepath.Join(t.TempDir(), "findings.csv") // outside dir: checked alone
	os.WriteFile(download, workspaceCSV(t, dir), 0o644)
	checkNoLiveFormula(t, filepath.Dir(download), hs.Lines)
}

// workspaceCSV is the findings.csv the workspace (billsnap serve, a
// child process) gives to download for the latest snapshot of dir.
func workspaceCSV(t *testing.T, dir string) []byte {
	t.Helper()
	cmd := exec.Command(e2etest.Binary(t), "serve", "--out", dir, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	var logs syncbuf.Buffer
	resp, err := http.Get(e2etest.ReadURL(t, stderr, &logs) + "findings.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /findings.csv: %s, %v\n%s", resp.Status, err, b)
	}
	return b
}

// runHostile runs the billsnap binary with args against the hostile
// service, for at most two minutes (a hang fails the test).
func runHostile(t *testing.T, hs *hostile.Server, args ...string) (int, string, string) {
	t.Helper()
	code, stdout, stderr, _ := runHostileState(t, hs, args...)
	return code, stdout, stderr
}

// runHostileState is runHostile, with the child's process state (its
// resource use).
func runHostileState(t *testing.T, hs *hostile.Server, args ...string) (int, string, string, *os.ProcessState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2etest.Binary(t), args...)
	cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY="+sandboxtest.Key, "BILLSNAP_BASE_URL="+hs.BaseURL(), "BILLSNAP_FRONT_URL="+hs.FrontURL())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("billsnap %s did not end within 2 minutes: %s", strings.Join(args, " "), errb.String())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String(), cmd.ProcessState
}

// checkRepairedNames checks every customer is kept with its names
// repaired, and the repairs counted in the snapshot's record
// (snapshot_fields), the report's Fields section (stdout) and the log.
func checkRepairedNames(t *testing.T, dir string, customers int, stdout, stderr string) {
	t.Helper()
	db := e2etest.OpenDB(t, dir)
	var n, repaired int
	bad := "\ufffd\ufffd\ufffd("
	// The customer whose Email is nested too deep has its _raw as a JSON
	// string of its text (fields.md): its name is looked for in the text.
	err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE full_name LIKE '%`+bad+`' AND company_name LIKE '%`+"\ufffd"+bad+
		`' AND CASE WHEN json_type(_raw) = 'VARCHAR' THEN contains(_raw->>'$', '\\ud800\\xFF\\xFE\\xC3(')
			ELSE (_raw->>'$.CompanyName') LIKE '%\ud800\xFF\xFE\xC3(' END) FROM customers WHERE snapshot_id = (SELECT id FROM latest_snapshot)`).Scan(&n, &repaired)
	if err != nil || n != customers || repaired != customers {
		t.Errorf("%d customers, %d with both names repaired (%v); want %d", n, repaired, err, customers)
	}
	var recorded int
	err = db.QueryRow(`SELECT sum(repaired) FROM snapshot_fields WHERE table_name = 'customers' AND field IN ('FullName', 'CompanyName')`).Scan(&recorded)
	if err != nil || recorded != 2*customers {
		t.Errorf("snapshot_fields records %d repaired names (%v), want %d", recorded, err, 2*customers)
	}
	for _, f := range []string{"FullName", "CompanyName"} {
		col := map[string]string{"FullName": "full_name", "CompanyName": "company_name"}[f]
		report := fmt.Sprintf("| customers.%s | %s string | string %d; %d repaired (not valid UTF-8) | 0 | 0 |", f, col, customers, customers)
		if !strings.Contains(stdout, report) {
			t.Errorf("the report (stdout) does not say %q:\n%s", report, stdout)
		}
		log := fmt.Sprintf(`msg="field arrived as text not valid UTF-8: repaired" table=customers field=%s column=%s repaired=%d`, f, col, customers)
		if !strings.Contains(stderr, log) {
			t.Errorf("the log (stderr) does not say %q:\n%s", log, stderr)
		}
	}
}

// checkDeepValueKept checks the customer whose Email came nested 200,000
// levels deep is kept: NULL in email, counted as untyped, the value in
// _raw.
func checkDeepValueKept(t *testing.T, dir, stdout string) {
	t.Helper()
	var n int
	err := e2etest.OpenDB(t, dir).QueryRow(`SELECT count(*) FROM customers WHERE snapshot_id = (SELECT id FROM latest_snapshot) AND email IS NULL AND length(_raw) > 400000`).Scan(&n)
	if err != nil || n != 1 {
		t.Errorf("%d customers with the deep Email kept NULL in email and whole in _raw (%v); want 1", n, err)
	}
	if want := "| customers.Email | email string | string "; !strings.Contains(stdout, want) || !strings.Contains(stdout, ", array 1 | 0 | 1 |") {
		t.Errorf("the summary does not say %q:\n%s", want, stdout)
	}
}

// checkNoLiveFormula parses every CSV file under dir and checks no cell
// begins like a formula, and that each planted line's ID reached one
// (neutralised): the test would see a live one.
func checkNoLiveFormula(t *testing.T, dir string, lines map[string]string) {
	t.Helper()
	seen := map[string]bool{}
	files := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".csv") {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for r, row := range rows {
			for c, cell := range row {
				if liveFormula(cell) {
					t.Errorf("%s, row %d, column %d: a live formula %q", path, r+1, c+1, cell)
				}
				seen[strings.TrimPrefix(cell, "'")] = true
			}
		}
		return nil
	})
	if files == 0 || len(lines) == 0 {
		t.Fatalf("%d CSV files, %d lines planted", files, len(lines))
	}
	for orig, planted := range lines {
		// A cell's control characters are escaped (csvsafe.Text), a
		// planted TAB or CR as the text \t or \r.
		if !seen[termsafe.Lines(planted)] {
			t.Errorf("the planted line %s (%q) is in no CSV cell: the test plants nothing that reaches one", orig, planted)
		}
	}
}

// liveFormula tells whether a spreadsheet would read cell as a formula:
// it begins with =, @, TAB or CR, or with + or - not followed by a number.
func liveFormula(cell string) bool {
	if cell == "" {
		return false
	}
	switch cell[0] {
	case '=', '@', '\t', '\r':
		return true
	case '+', '-':
		return !isNumberCell(cell[1:])
	}
	return false
}

// isNumberCell tells whether s is a plain decimal number (digits, at most
// one point).
func isNumberCell(s string) bool {
	digits, point := 0, false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}
