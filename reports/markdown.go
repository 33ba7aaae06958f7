package reports

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/billsnap/billsnap/reconcile"
)

// Markdown writes the summary for a terminal or a cron mail: the verdict,
// the snapshot, completeness per collection, per rule the counts and the
// unwaived amount per currency, and where the full reports are.
func Markdown(w io.Writer, in *Input, files []string) error {
	ew := &errWriter{w: w}
	r := in.Report
	fmt.Fprintf(ew, "# billsnap: %s (exit %d)\n\n", in.Verdict(), in.ExitCode)
	s := r.Snapshot
	fmt.Fprintf(ew, "Snapshot %s, %s, taken %s in %s; as of %s, %s; %s.\n\n", s.ID, s.Status, s.Started.UTC().Format(timeFormat),
		in.duration(), r.AsOf.UTC().Format(timeFormat), periodText(r), previousText(r))
	if r.Untrusted {
		fmt.Fprintf(ew, "**The snapshot is incomplete: the other rules' findings are not trusted.**\n\n")
	}
	fmt.Fprintf(ew, "## Collections\n\n| collection | TotalCount | records | Parquet rows | complete |\n|---|---:|---:|---:|---|\n")
	for _, t := range in.collections() {
		fmt.Fprintf(ew, "| %s | %d | %d | %d | %s |\n", t.Table, t.TotalCount, t.Received, t.ParquetRows, yesNo(t.Complete, t.Problem))
	}
	fmt.Fprintf(ew, "\n## Findings\n\n| rule | severity | findings | new | recurring | resolved | waived | unwaived amount |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	quiet := 0
	for _, t := range r.Totals() {
		if t.Count == 0 && t.Resolved == 0 {
			quiet++
			continue
		}
		fmt.Fprintf(ew, "| %s | %s | %d | %d | %d | %d | %d | %s |\n", t.Rule.ID, t.Rule.Severity, t.Count, t.New, t.Recurring, t.Resolved, t.Waived, orDash(perCurrency(t.Amounts)))
	}
	if quiet > 0 {
		fmt.Fprintf(ew, "\n%d rules found nothing.\n", quiet)
	}
	verdict(ew, in)
	if len(files) > 0 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = filepath.Base(f)
		}
		fmt.Fprintf(ew, "\nReports in %s: %s\n", filepath.Dir(files[0]), strings.Join(names, ", "))
	}
	return ew.err
}

func verdict(w io.Writer, in *Input) {
	if len(in.Report.Material) == 0 {
		fmt.Fprintf(w, "\nNothing material.\n")
		return
	}
	fmt.Fprintf(w, "\n## Material\n\n")
	for _, m := range in.Report.Material {
		fmt.Fprintf(w, "- %s\n", m)
	}
}

func yesNo(ok bool, problem string) string {
	if ok {
		return "yes"
	}
	return "**no**: " + problem
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// periodText is "period 2026-10" or "all periods".
func periodText(r *reconcile.Report) string {
	if r.Period == nil {
		return "all periods"
	}
	return "period " + r.Period.String()
}

// previousText names the snapshot history is compared with.
func previousText(r *reconcile.Report) string {
	if r.Previous == "" {
		return "no earlier complete snapshot to compare with"
	}
	return "compared with snapshot " + r.Previous
}
