//go:build heavy

package reports

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/internal/testtools"
)

// openpyxlRead is what openpyxl (the reader pandas uses for .xlsx) reads of
// a workbook: its sheets, their layout, the cells asked for, and the rows
// of each sheet in read-only mode (which trusts the sheet's used range).
const openpyxlRead = `
import json, sys, openpyxl
path = sys.argv[1]
wb = openpyxl.load_workbook(path)
out = {"sheets": wb.sheetnames, "layout": {}, "cells": {}}
for ws in wb.worksheets:
    pr = ws.sheet_properties.pageSetUpPr
    out["layout"][ws.title] = {"freeze": ws.freeze_panes, "titles": ws.print_title_rows,
        "orientation": ws.page_setup.orientation, "fit": bool(pr is not None and pr.fitToPage),
        "fit_width": ws.page_setup.fitToWidth}
for spec in sys.argv[2:]:
    sheet, ref = spec.split("!")
    c = wb[sheet][ref]
    out["cells"][spec] = {"value": c.value, "type": type(c.value).__name__, "format": c.number_format,
        "bold": bool(c.font.b), "fill": c.fill.fgColor.rgb if c.fill.fill_type else None,
        "wrap": bool(c.alignment.wrap_text)}
ro = openpyxl.load_workbook(path, read_only=True)
out["rows"] = {ws.title: sum(1 for _ in ws.iter_rows()) for ws in ro.worksheets}
print(json.dumps(out, default=str))
`

type openpyxlBook struct {
	Sheets []string
	Layout map[string]struct {
		Freeze, Titles, Orientation string
		Fit                         bool
		FitWidth                    int `json:"fit_width"`
	}
	Cells map[string]struct {
		Value      any
		Type       string
		Format     string
		Bold, Wrap bool
		Fill       *string
	}
	Rows map[string]int
}

func readWithOpenpyxl(t *testing.T, in *Input, cells ...string) openpyxlBook {
	t.Helper()
	python := testtools.RequirePython(t, "openpyxl", "python3-openpyxl")
	path := filepath.Join(t.TempDir(), "findings.xlsx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := XLSX(f, in); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, append([]string{"-c", openpyxlRead, path}, cells...)...).Output()
	if err != nil {
		t.Fatalf("openpyxl: %v", err)
	}
	var book openpyxlBook
	if err := json.Unmarshal(out, &book); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return book
}

// The workbook reads in openpyxl as finance sees it in a spreadsheet
// program: IDs and customers as text, amounts as numbers in their currency's format, a
// bold header frozen and printed on every page, landscape one page wide,
// and every row inside each sheet's used range.
func TestOpenpyxlReadsTheWorkbook(t *testing.T) {
	book := readWithOpenpyxl(t, fixture(t), "charge_not_invoiced!A1", "charge_not_invoiced!C2", "charge_not_invoiced!E2", "charge_not_invoiced!G2", "charge_not_invoiced!I2", "Summary!A1")
	want := "Summary charge_not_invoiced price_mismatch missed_billing_run paid_without_payment Snapshot Sign-off"
	if got := strings.Join(book.Sheets, " "); got != want {
		t.Fatalf("sheets %q, want %q", got, want)
	}
	c := book.Cells
	if h := c["charge_not_invoiced!A1"]; h.Value != "Status" || !h.Bold || h.Fill == nil || *h.Fill != "FFE9ECEF" {
		t.Errorf("header cell %+v", h)
	}
	if id := c["charge_not_invoiced!C2"]; id.Type != "str" || id.Value != "a1b2c3d4-0000-4000-8000-000000000001" {
		t.Errorf("ID cell %+v", id)
	}
	if cu := c["charge_not_invoiced!E2"]; cu.Type != "str" || cu.Value == "" {
		t.Errorf("customer cell %+v", cu)
	}
	if a := c["charge_not_invoiced!G2"]; a.Type != "float" || a.Value != 249.5 || !strings.Contains(a.Format, `"EUR"`) {
		t.Errorf("amount cell %+v", a)
	}
	if d := c["charge_not_invoiced!I2"]; !d.Wrap || d.Type != "str" {
		t.Errorf("detail cell %+v", d)
	}
	if s := c["Summary!A1"]; !s.Bold || !strings.Contains(s.Value.(string), "MATERIAL (exit 3)") {
		t.Errorf("title cell %+v", s)
	}
	for _, sheet := range book.Sheets {
		l := book.Layout[sheet]
		if l.Orientation != "landscape" || !l.Fit || l.FitWidth != 1 {
			t.Errorf("%s prints %+v", sheet, l)
		}
	}
	if l := book.Layout["charge_not_invoiced"]; l.Freeze != "A2" || l.Titles != "$1:$1" {
		t.Errorf("the rule sheet's header is not frozen and printed on every page: %+v", l)
	}
	if n := book.Rows["charge_not_invoiced"]; n != 3 {
		t.Errorf("read-only openpyxl reads %d rows of charge_not_invoiced, want 3", n)
	}
}

// Every finding of a large reconciliation is read by openpyxl in read-only
// mode, the way pandas reads a workbook.
func TestOpenpyxlReadsEveryFinding(t *testing.T) {
	in := bigInput(nil, 3000)
	book := readWithOpenpyxl(t, in)
	want := map[string]int{}
	for _, f := range in.Report.Findings {
		want[f.Rule]++
	}
	for rule, n := range want {
		if got := book.Rows[rule]; got != n+1 {
			t.Errorf("%s: openpyxl reads %d rows, want %d findings and the header", rule, got, n)
		}
	}
	for _, sheet := range []string{SheetSummary, SheetSnapshot, SheetSignOff} {
		if book.Rows[sheet] < 5 {
			t.Errorf("%s: %d rows", sheet, book.Rows[sheet])
		}
	}
}
