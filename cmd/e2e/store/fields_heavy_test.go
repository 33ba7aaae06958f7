//go:build heavy

package store

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A field billsnap only assumes that arrives with no lossless reading is
// NULL in its column, the export exits 0, and the value is shown in the
// export's summary and log, in status, in the report's Snapshot section
// (Markdown, HTML, XLSX) and in the metrics.
func TestAnUntypedAssumedFieldIsShownEverywhere(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 2, Customers: 20}, `set=PaymentMethods.Active@1:"maybe"`)
	id := srv.Dataset().PaymentMethods[0].ID
	dir := t.TempDir()
	code, _, stderr := e2etest.CLI(t, srv, "run", "--out", dir, "--progress", "none")
	if code != job.ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var active any = "unset"
	if err := e2etest.OpenDB(t, dir).QueryRow("SELECT active FROM latest_payment_methods WHERE id = ?", id).Scan(&active); err != nil || active != nil {
		t.Errorf("active of %s: %v, %v; want NULL", id, active, err)
	}
	line := "payment_methods.Active (active): a boolean column; arrived as string 1, boolean"
	checks := map[string]string{
		"the log (stderr)": stderr,
		"status":           e2etest.RunOut(t, srv, "status", "--out", dir),
		"metrics":          e2etest.ReadFile(t, filepath.Join(dir, "billsnap.prom")),
	}
	reports, _ := filepath.Glob(filepath.Join(dir, "reports", "*"))
	for _, name := range []string{"summary.md", "report.html", "findings.xlsx"} {
		checks[name] = e2etest.ReadFile(t, filepath.Join(reports[0], name))
	}
	for where, text := range checks {
		var want []string
		switch where {
		case "the log (stderr)":
			want = []string{`msg="field arrived in another JSON type" table=payment_methods field=Active column=active`, "untyped=1 example=" + id}
		case "status":
			want = []string{"1 untyped (NULL in their column, kept in _raw)", line, "e.g. record " + id}
		case "metrics":
			want = []string{`billsnap_last_run_field_values{field="Active",job="run",outcome="untyped",table="payment_methods"} 1`}
		case "summary.md":
			want = []string{"## Fields", "| payment_methods.Active | active boolean | string 1, boolean ", " | 0 | 1 | " + id + " |"}
		case "report.html":
			want = []string{"payment_methods.Active</td><td>active (boolean)</td><td>string 1, boolean"}
		case "findings.xlsx":
			want = []string{"payment_methods.Active", id}
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not show %q", where, w)
			}
		}
	}
	if code, out, _ := e2etest.CLI(t, srv, "export", "--out", t.TempDir(), "--progress", "none"); code != job.ExitOK ||
		!strings.Contains(out, "fields:  0 values coerced, 1 untyped") || !strings.Contains(out, line) {
		t.Errorf("export: exit %d; the summary does not show the field:\n%s", code, out)
	}
}
