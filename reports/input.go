package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/manifest"
)

// Input is everything a report shows.
type Input struct {
	Report    *findings.Report
	Tables    []manifest.TableStats // the snapshot's manifest
	Fields    []manifest.FieldStats // what the snapshot received of each field
	Trend     []findings.TrendPoint // the last reconciliations, oldest first, this one last
	ExitCode  int                   // what the run exits with
	Demo      bool                  // the demo's reports: the demo exits 0 whatever it finds
	Generated time.Time
	MaxRows   int // findings shown per rule in HTML; the CSV has them all
	// SignOffs are the period's sign-offs made in the workspace, of this
	// snapshot or an earlier one, oldest first.
	SignOffs []ledger.Signed
	// Close is the period's close when it is closed: the closed figures,
	// and what was done after them.
	Close *Closed
	// Flux is the period's flux review with its explanations; nil for
	// none (a report of a whole snapshot).
	Flux *Flux
	// Work is the findings' work from the workspace's ledger (assignee,
	// due date, comments); nil for none.
	Work WorkOf
}

// Closed is a closed period as a report shows it.
type Closed struct {
	ledger.Closed
	Adjustments []ledger.Entry // the post-close adjustments, oldest first
}

// CloseLines are the lines a report gives the period's close: who closed
// it, when and on what, its figures, whether this report's findings are
// the closed ones, and each post-close adjustment.
func (in *Input) CloseLines() []string {
	c := in.Close
	if c == nil {
		return nil
	}
	var totals []string
	for _, cur := range slices.Sorted(maps.Keys(c.Totals)) {
		totals = append(totals, fmt.Sprintf("%s net %s, gross %s", currencyLabel(cur), c.Totals[cur].Net, c.Totals[cur].Gross))
	}
	if len(totals) == 0 {
		totals = []string{"no amounts"}
	}
	out := []string{fmt.Sprintf("Period %s closed by %s, %s (%s), on sign-off %s of snapshot %s: %s; closed figures: %s",
		c.Period, c.By, c.At.UTC().Format(timeFormat), c.ID, c.SignOff, c.Snapshot, plural.Of(c.Findings, "open finding"), strings.Join(totals, "; "))}
	if d, _ := in.Report.Digest(); d == c.Digest {
		out = append(out, "This report's findings are the ones closed.")
	} else {
		out = append(out, "This report's findings are not the ones closed: the closed figures above stand, and what changed since is below.")
	}
	for _, e := range c.Adjustments {
		out = append(out, fmt.Sprintf("Post-close adjustment #%d, %s, by %s: %s", e.Seq, e.At.UTC().Format(timeFormat), e.By, adjustmentText(e)))
	}
	return out
}

// adjustmentText says what a post-close adjustment did.
func adjustmentText(e ledger.Entry) string {
	switch {
	case e.Waiver != nil:
		return fmt.Sprintf("waived %s %s (%s): %s", e.Waiver.Rule, e.Waiver.EntityID, e.Waiver.ID, e.Waiver.Reason)
	case e.Lift != "":
		return "lifted waiver " + e.Lift
	case e.SignOff != nil:
		return fmt.Sprintf("signed off snapshot %s as %s (%s)", e.SignOff.Snapshot, e.SignOff.Name, e.SignOff.Role)
	case e.Explanation != nil:
		x := e.Explanation
		return fmt.Sprintf("explained %s %s (%s, %s → %s): %s", x.Measure, x.Currency, x.ID, x.Previous, x.Current, x.Text)
	}
	return e.Action
}

// SignOffLine is a sign-off as a report shows it: whether the findings it
// signed are this report's.
type SignOffLine struct {
	ledger.Signed
	Matches bool
}

// SignOffLines are the sign-offs, each compared with this report's
// findings.
func (in *Input) SignOffLines() []SignOffLine {
	if len(in.SignOffs) == 0 {
		return nil
	}
	d, _ := in.Report.Digest()
	out := make([]SignOffLine, len(in.SignOffs))
	for i, so := range in.SignOffs {
		out[i] = SignOffLine{Signed: so, Matches: so.Snapshot == in.Report.Snapshot.ID && so.Digest == d}
	}
	return out
}

// Text is the line a report gives a sign-off.
func (l SignOffLine) Text() string {
	s := fmt.Sprintf("%s (%s), %s, snapshot %s: %s", l.Name, l.Role, l.At.UTC().Format(timeFormat), l.Snapshot, plural.Of(l.Findings, "open finding"))
	if l.Comment != "" {
		s += ", “" + l.Comment + "”"
	}
	if l.Matches {
		return s + "; these findings are the ones signed"
	}
	return s + "; the findings have changed since"
}

// Verdict is the outcome in a word: MATERIAL, UNTRUSTED or OK.
func (in *Input) Verdict() string {
	switch {
	case in.Report.Untrusted:
		return "UNTRUSTED"
	case len(in.Report.Material) > 0:
		return "MATERIAL"
	}
	return "OK"
}

// ExitText is what the run exits with, as the reports say it: "exit 3";
// for the demo, that it exits 0 and what billsnap run would exit with.
func (in *Input) ExitText() string {
	if in.Demo && in.Verdict() != "OK" {
		return fmt.Sprintf("exit %d: the demo exits 0 whatever it finds; billsnap run exits 3 here", in.ExitCode)
	}
	return fmt.Sprintf("exit %d", in.ExitCode)
}

// collections are the walked tables of the manifest (not the child tables).
func (in *Input) collections() []manifest.TableStats {
	var out []manifest.TableStats
	for _, t := range in.Tables {
		if t.Table == t.Collection {
			out = append(out, t)
		}
	}
	return out
}

// duration is how long the snapshot took.
func (in *Input) duration() time.Duration {
	s := in.Report.Snapshot
	if s.Finished.Before(s.Started) {
		return 0
	}
	return s.Finished.Sub(s.Started).Round(100 * time.Millisecond)
}

// fieldNotes are the fields people should see: coerced or untyped
// values, new fields, absent ones.
func (in *Input) fieldNotes() manifest.FieldNotes { return manifest.Notes(in.Fields, in.Tables) }
