package reports

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/money"
)

const timeFormat = "2006-01-02 15:04:05 UTC"

// Text writes the terminal summary: the snapshot checked, per rule the
// count and the unwaived amount per currency, the totals, and the verdict.
// Text from the data (notes, waivers, material lines) has its control
// characters escaped (termsafe.String).
func Text(w io.Writer, r *findings.Report) error {
	ew := &errWriter{w: w}
	header(ew, r)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rule\tseverity\tfindings\tnew\trecurring\tresolved\twaived\tnot judged\tamount (unwaived)")
	for _, t := range r.Totals() {
		if t.Count == 0 && t.Resolved == 0 && t.NotJudged == 0 {
			fmt.Fprintf(tw, "%s\t%s\t0\t\t\t\t\t\t\n", t.Rule.ID, t.Rule.Severity)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", t.Rule.ID, t.Rule.Severity, t.Count, t.New, t.Recurring, t.Resolved, t.Waived,
			blankZero(t.NotJudged), perCurrency(t.Amounts, t.AtStake))
	}
	tw.Flush()
	for i, n := range r.NotJudgedNotes() {
		if i == 0 {
			fmt.Fprintf(ew, "\nNot judged (values that arrived untyped; no finding is raised for them):\n")
		}
		fmt.Fprintf(ew, "  %s\n", termsafe.String(n))
	}
	footer(ew, r)
	return ew.err
}

func header(w io.Writer, r *findings.Report) {
	s := r.Snapshot
	fmt.Fprintf(w, "Reconciliation of snapshot %s (%s, taken %s)\n", s.ID, s.Status, s.Started.UTC().Format(timeFormat))
	fmt.Fprintf(w, "as of %s, %s; %s\n\n", r.AsOf.UTC().Format(timeFormat), periodText(r), previousText(r))
	if r.Untrusted {
		fmt.Fprintf(w, "WARNING: the snapshot is incomplete (snapshot_incomplete fired): the other rules' findings are not trusted.\n\n")
	}
}

func footer(w io.Writer, r *findings.Report) {
	var count, waived, resolved int
	for _, t := range r.Totals() {
		count, waived, resolved = count+t.Count, waived+t.Waived, resolved+t.Resolved
	}
	fmt.Fprintf(w, "\nTotal: %s (%d open, %d waived), %d resolved since the previous snapshot\n", plural.Of(count, "finding"), r.OpenCount(), waived, resolved)
	totals := r.CurrencyTotals()
	for _, c := range findings.Currencies(totals) {
		fmt.Fprintf(w, "  %s %s\n", currencyLabel(c), netGross(totals[c]))
	}
	if n := r.Nameless(); n > 0 {
		fmt.Fprintf(w, "Customer's name not found: %s (their customer ID, if any, is shown alone)\n", plural.Of(n, "finding"))
	}
	for _, wv := range r.ExpiredWaivers {
		fmt.Fprintf(w, "Expired waiver, no longer applied: %s %s (%s, expired %s)\n",
			termsafe.String(wv.Rule), termsafe.String(wv.EntityID), termsafe.String(wv.Owner), wv.Expires.Format("2006-01-02"))
	}
	if len(r.Material) == 0 {
		fmt.Fprintf(w, "\nNothing material.\n")
		return
	}
	fmt.Fprintf(w, "\nMATERIAL:\n")
	for _, m := range r.Material {
		fmt.Fprintf(w, "  %s\n", termsafe.String(m))
	}
}

// perCurrency writes "EUR 12.00, USD -3.50, GBP —": each currency's
// amount, or findings.NoMoney where its findings carry none (gross, their
// absolute amounts, is 0).
func perCurrency(m, gross map[string]money.Amount) string {
	var parts []string
	for _, c := range findings.Currencies(m) {
		if c == "" && gross[c] == 0 {
			continue // a rule without money nor currency, such as snapshot_incomplete
		}
		parts = append(parts, currencyLabel(c)+" "+amountText(m[c], gross[c], money.Amount.String))
	}
	return strings.Join(parts, ", ")
}

func currencyLabel(c string) string {
	if c == "" {
		return "(none)"
	}
	return c
}

// errWriter keeps the first write error, so renderers check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// blankZero is n, or "" for 0.
func blankZero(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// netGross labels a currency's total both ways: net (signed amounts added,
// so opposite errors cancel) and gross (absolute amounts added).
func netGross(t findings.CurrencyTotal) string {
	if t.Gross == 0 {
		return fmt.Sprintf("net %s, gross %[1]s (the findings carry no money)", findings.NoMoney)
	}
	return fmt.Sprintf("net %s, gross %s (unwaived; gross adds absolute amounts)", t.Net, t.Gross)
}

// netAndGross are r's totals per currency, net and gross, as two maps.
func netAndGross(r *findings.Report) (net, gross map[string]money.Amount) {
	net, gross = map[string]money.Amount{}, map[string]money.Amount{}
	for c, t := range r.CurrencyTotals() {
		net[c], gross[c] = t.Net, t.Gross
	}
	return net, gross
}
