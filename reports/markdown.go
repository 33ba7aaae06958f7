package reports

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/snip"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/manifest"
)

// Markdown writes the summary for a terminal or a cron mail: the verdict,
// the snapshot, completeness per collection, per rule the counts and the
// unwaived amount per currency, and where the full reports are. The
// control characters the data holds are escaped (termsafe.Writer).
func Markdown(w io.Writer, in *Input, files []string) error {
	ew := &errWriter{w: termsafe.Writer{W: w}} // the data's control characters escaped, on a terminal or in a mail
	r := in.Report
	fmt.Fprintf(ew, "# billsnap: %s (%s)\n\n", in.Verdict(), in.ExitText())
	s := r.Snapshot
	fmt.Fprintf(ew, "Snapshot %s, %s, taken %s in %s; as of %s, %s; %s.\n\n", s.ID, s.Status, s.Started.UTC().Format(timeFormat),
		in.duration(), r.AsOf.UTC().Format(timeFormat), periodText(r), previousText(r))
	if r.Untrusted {
		fmt.Fprintf(ew, "**The snapshot is incomplete: the other rules' findings are not trusted.**\n\n")
	}
	fmt.Fprintf(ew, "## Collections\n\n| collection | TotalCount | records | Parquet rows | complete |\n|---|---:|---:|---:|---|\n")
	for _, t := range in.collections() {
		fmt.Fprintf(ew, "| %s | %d | %d | %d | %s |\n", mdText(t.Table), t.TotalCount, t.Received, t.ParquetRows, yesNo(t.Complete, t.Problem))
	}
	markdownFields(ew, in.fieldNotes())
	fmt.Fprintf(ew, "\n## Findings\n\n| rule | severity | findings | new | recurring | resolved | waived | not judged | unwaived amount |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	quiet := 0
	for _, t := range r.Totals() {
		if t.Count == 0 && t.Resolved == 0 && t.NotJudged == 0 {
			quiet++
			continue
		}
		fmt.Fprintf(ew, "| %s | %s | %d | %d | %d | %d | %d | %d | %s |\n", mdText(t.Rule.ID), mdText(t.Rule.Severity), t.Count, t.New, t.Recurring, t.Resolved, t.Waived,
			t.NotJudged, mdText(orDash(perCurrency(t.Amounts, t.AtStake))))
	}
	if quiet > 0 {
		fmt.Fprintf(ew, "\n%s found nothing.\n", plural.Of(quiet, "rule"))
	}
	totals := r.CurrencyTotals()
	for i, c := range findings.Currencies(totals) {
		if i == 0 {
			fmt.Fprintf(ew, "\nTotal of the unwaived findings, per currency:\n\n")
		}
		fmt.Fprintf(ew, "- %s: %s\n", mdText(currencyLabel(c)), mdText(netGross(totals[c])))
	}
	markdownWaivedByReason(ew, in)
	markdownAssigned(ew, in)
	if n := r.Nameless(); n > 0 {
		fmt.Fprintf(ew, "\nCustomer's name not found: %s (their customer ID, if any, is shown alone).\n", plural.Of(n, "finding"))
	}
	if notes := r.NotJudgedNotes(); len(notes) > 0 {
		fmt.Fprintf(ew, "\n### Not judged\n\nValues that arrived untyped (NULL in their column) keep these rules from judging some records; no finding is raised for them.\n\n")
		for _, n := range notes {
			fmt.Fprintf(ew, "- %s\n", mdText(n))
		}
	}
	if lines := in.SignOffLines(); len(lines) > 0 {
		fmt.Fprintf(ew, "\n## Sign-off\n\n")
		for _, l := range lines {
			fmt.Fprintf(ew, "- %s\n", mdText(l.Text()))
		}
	}
	if lines := in.FluxLines(); len(lines) > 0 {
		fmt.Fprintf(ew, "\n## Flux review of %s against %s\n\n", in.Flux.Period, in.Flux.Previous)
		for _, l := range lines {
			fmt.Fprintf(ew, "- %s\n", mdText(l))
		}
	}
	if lines := in.CloseLines(); len(lines) > 0 {
		fmt.Fprintf(ew, "\n## Closed\n\n")
		for _, l := range lines {
			fmt.Fprintf(ew, "- %s\n", mdText(l))
		}
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

// markdownFields is the snapshot's field notes: a table of the fields
// whose values were coerced or untyped, then the new and absent ones.
// Bounds of what the summary quotes of the service's fields, in bytes: a
// name (or an example record's ID) longer is cut to a snippet that
// states its length, and so is a list of names, so that no line of the
// summary is longer than snip.Line once escaped (at most four bytes a
// byte: a control character as \xNN).
const (
	nameLen = 200
	listLen = 1000
)

func markdownFields(w io.Writer, n manifest.FieldNotes) {
	fmt.Fprintf(w, "\n## Fields\n\n")
	if len(n.Drifted) == 0 {
		fmt.Fprintf(w, "Every typed field arrived in its own type.\n")
	} else {
		fmt.Fprintf(w, "| field | column | arrived as | coerced | untyped (NULL) | example record |\n|---|---|---|---:|---:|---|\n")
		for _, f := range n.Drifted {
			fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %s |\n", mdText(f.Table+"."+snip.String(f.Field, nameLen)), mdText(f.Column+" "+f.Kind),
				mdText(f.ArrivedText()), f.Coerced, f.Untyped, mdText(snip.String(f.Example, nameLen)))
		}
	}
	for _, group := range []struct {
		label  string
		fields []manifest.FieldStats
	}{{"New fields, no typed column (kept in `_raw`)", n.New}, {"Never arrived", n.Absent}} {
		if len(group.fields) == 0 {
			continue
		}
		names := make([]string, len(group.fields))
		for i, f := range group.fields {
			names[i] = f.Table + "." + snip.String(f.Field, nameLen)
			if f.New() {
				names[i] += " (" + plural.Of(f.Received(), "record") + ")"
			}
		}
		fmt.Fprintf(w, "\n%s: %s.\n", group.label, mdText(snip.String(strings.Join(names, ", "), listLen)))
	}
}

func verdict(w io.Writer, in *Input) {
	if len(in.Report.Material) == 0 {
		fmt.Fprintf(w, "\nNothing material.\n")
		return
	}
	fmt.Fprintf(w, "\n## Material\n\n")
	for _, m := range in.Report.Material {
		fmt.Fprintf(w, "- %s\n", mdText(m))
	}
}

func yesNo(ok bool, problem string) string {
	if ok {
		return "yes"
	}
	return "**no**: " + mdText(problem)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// periodText is "period 2026-10" or "all periods".
func periodText(r *findings.Report) string {
	if r.Period == nil {
		return "all periods"
	}
	return "period " + r.Period.String()
}

// previousText names the snapshot history is compared with.
func previousText(r *findings.Report) string {
	if r.Previous == "" {
		return "no earlier complete snapshot to compare with"
	}
	return "compared with snapshot " + r.Previous
}

// markdownWaivedByReason is the waived money by reason code, a line a
// code; nothing when no finding is waived.
func markdownWaivedByReason(w io.Writer, in *Input) {
	for i, t := range in.WaivedByReason() {
		if i == 0 {
			fmt.Fprintf(w, "\nWaived, by reason code (worklist.reasons):\n\n")
		}
		fmt.Fprintf(w, "- %s\n", mdText(t.Text()))
	}
}

// mdAssignedRows is how many assigned findings the Markdown summary lists
// at most; the CSV and the XLSX list them all.
const mdAssignedRows = 20

// markdownAssigned is the open findings that are assigned: how many,
// how many overdue, and a table of them (the overdue first) with
// assignee, due date and comments.
func markdownAssigned(w io.Writer, in *Input) {
	as := in.Assigned()
	if len(as) == 0 {
		return
	}
	overdue := 0
	for _, a := range as {
		if a.Work.Overdue {
			overdue++
		}
	}
	slices.SortStableFunc(as, func(a, b AssignedFinding) int {
		return cmp.Or(-cmp.Compare(btoi(a.Work.Overdue), btoi(b.Work.Overdue)), cmp.Compare(a.Work.Due, b.Work.Due))
	})
	fmt.Fprintf(w, "\n## Assigned\n\n%s assigned, %d overdue.\n\n| rule | record | assignee | due | overdue | comments |\n|---|---|---|---|---|---:|\n",
		plural.Of(len(as), "open finding"), overdue)
	for _, a := range as[:min(len(as), mdAssignedRows)] {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %d |\n", mdText(a.Rule), mdText(a.EntityID), mdText(a.Work.Assignee), mdText(a.Work.Due),
			map[bool]string{true: "**yes**", false: "no"}[a.Work.Overdue], len(a.Work.Comments))
	}
	if len(as) > mdAssignedRows {
		fmt.Fprintf(w, "\nShowing %d of %d; findings.csv lists every finding with its assignee and due date.\n", mdAssignedRows, len(as))
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
