package workbook

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

var styles = []Style{
	{Bold: true, Fill: "E9ECEF"},
	{Bold: true, Size: 14},
	{Wrap: true},
	{Bottom: "868E96"},
	{NumFmt: `#,##0.00 "EUR";-#,##0.00 "EUR";0.00 "EUR"`},
}

// sample writes a workbook with a streamed sheet, a held one and one whose
// name needs quoting, with every kind of value.
func sample(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	bk, err := New(&out, Plan{Styles: styles, Modified: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Sheets: []Sheet{
		{Name: "Findings", Widths: []float64{12, 40, 14}, Landscape: true, HeaderRows: 1, Rows: 4},
		{Name: "Ann's notes", Widths: []float64{30}},
		{Name: "Empty"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{Cell{Value: "ID", Style: 1}, Cell{Value: "Detail", Style: 1}, Cell{Value: "Amount", Style: 1}},
		{"00012345", Cell{Value: "a <b> & \"c\" 'd'\nline two\x01", Style: 3}, Cell{Value: 249.5, Style: 5}},
		{"x", nil, Cell{Value: -1234.56, Style: 5}},
		{int64(7), uint8(8), true},
	}
	heights := []float64{0, 30, 0, 0}
	if err := bk.Next(); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if err := bk.Row(heights[i], r...); err != nil {
			t.Fatal(err)
		}
	}
	if err := bk.Next(); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][]any{{Cell{Value: "Notes", Style: 2}}, {}, {strings.Repeat("é", 40000)}, {"😀 " + strings.Repeat("x", MaxCellText)}, {Cell{Style: 4}, false}} {
		if err := bk.Row(0, r...); err != nil {
			t.Fatal(err)
		}
	}
	if err := bk.Next(); err != nil {
		t.Fatal(err)
	}
	if err := bk.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// A workbook reads back in another library's reader as it was written:
// sheets, values and their types, styles, widths, heights, the frozen and
// printed header, the print layout, the used range.
func TestAWorkbookReadsBack(t *testing.T) {
	f, err := excelize.OpenReader(bytes.NewReader(sample(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := strings.Join(f.GetSheetList(), "|"); got != "Findings|Ann's notes|Empty" {
		t.Fatalf("sheets %q", got)
	}
	rows, _ := f.GetRows("Findings")
	want := [][]string{{"ID", "Detail", "Amount"}, {"00012345", "a <b> & \"c\" 'd'\nline two\uFFFD", "249.50 EUR"}, {"x", "", "-1,234.56 EUR"}, {"7", "8", "TRUE"}}
	for i := range want {
		if i >= len(rows) || strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Fatalf("rows %q, want %q", rows, want)
		}
	}
	types := map[string]excelize.CellType{"A2": excelize.CellTypeInlineString, "C2": excelize.CellTypeUnset, "A4": excelize.CellTypeUnset, "C4": excelize.CellTypeBool}
	for cell, want := range types {
		if got, _ := f.GetCellType("Findings", cell); got != want {
			t.Errorf("%s is of type %v, want %v", cell, got, want)
		}
	}
	checkStyles(t, f)
	checkLayout(t, f)
	notes, _ := f.GetRows("Ann's notes")
	if len(notes) != 5 || len([]rune(notes[2][0])) != MaxCellText || !strings.HasSuffix(notes[2][0], "é…") {
		t.Errorf("a long text is not clipped to a cell's %d characters: %d rows, %d characters", MaxCellText, len(notes), len([]rune(notes[2][0])))
	}
	if n := len([]rune(notes[3][0])); n != MaxCellText-1 || !strings.HasPrefix(notes[3][0], "😀") { // the emoji counts two
		t.Errorf("an emoji's text is clipped to %d characters", n)
	}
}

func checkStyles(t *testing.T, f *excelize.File) {
	t.Helper()
	style := func(cell string) *excelize.Style {
		id, err := f.GetCellStyle("Findings", cell)
		if err != nil {
			t.Fatal(err)
		}
		s, err := f.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := style("A1"); s.Font == nil || !s.Font.Bold || s.Fill.Pattern != 1 { // its colour needs a theme to read back here; see TestEveryPartIsWellFormed
		t.Errorf("header style %+v %+v", s.Font, s.Fill)
	}
	if s := style("B2"); s.Alignment == nil || !s.Alignment.WrapText || s.Alignment.Vertical != "top" {
		t.Errorf("wrapped style %+v", s.Alignment)
	}
	if s := style("C2"); s.CustomNumFmt == nil || !strings.Contains(*s.CustomNumFmt, `"EUR"`) {
		t.Errorf("amount style %+v", s.CustomNumFmt)
	}
	if v, _ := f.GetCellValue("Findings", "C3"); v != "-1,234.56 EUR" {
		t.Errorf("an amount shows as %q", v)
	}
	id, _ := f.GetCellStyle("Ann's notes", "A1")
	if s, _ := f.GetStyle(id); s.Font == nil || s.Font.Size != 14 {
		t.Errorf("title style %+v", s.Font)
	}
	id, _ = f.GetCellStyle("Ann's notes", "A5")
	if s, _ := f.GetStyle(id); len(s.Border) != 1 || s.Border[0].Type != "bottom" {
		t.Errorf("an empty styled cell lost its border: %+v", s.Border)
	}
}

func checkLayout(t *testing.T, f *excelize.File) {
	t.Helper()
	if w, _ := f.GetColWidth("Findings", "B"); w != 40 {
		t.Errorf("column B is %v wide", w)
	}
	if h, _ := f.GetRowHeight("Findings", 2); h != 30 {
		t.Errorf("row 2 is %v high", h)
	}
	if p, _ := f.GetPanes("Findings"); !p.Freeze || p.YSplit != 1 || p.TopLeftCell != "A2" {
		t.Errorf("the header is not frozen: %+v", p)
	}
	names := map[string]string{}
	for _, n := range f.GetDefinedName() {
		names[n.Name+"@"+n.Scope] = n.RefersTo
	}
	if got := names["_xlnm.Print_Titles@Findings"]; got != "'Findings'!$1:$1" {
		t.Errorf("print titles %q (defined names %v)", got, names)
	}
	layout, _ := f.GetPageLayout("Findings")
	if layout.Orientation == nil || *layout.Orientation != "landscape" || layout.FitToWidth == nil || *layout.FitToWidth != 1 {
		t.Errorf("page layout %+v", layout)
	}
	if props, _ := f.GetSheetProps("Findings"); props.FitToPage == nil || !*props.FitToPage {
		t.Errorf("not fitted to the page: %+v", props)
	}
	for sheet, want := range map[string]string{"Findings": "A1:C4", "Ann's notes": "A1:B5", "Empty": ""} {
		if got, _ := f.GetSheetDimension(sheet); got != want {
			t.Errorf("%s's used range %q, want %q", sheet, got, want)
		}
	}
}

// Every part of the archive is well-formed XML, and every sheet has its
// content type and its relationship.
func TestEveryPartIsWellFormed(t *testing.T) {
	data := sample(t)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	all := map[string]string{}
	for _, f := range zr.File {
		parts = append(parts, f.Name)
		rc, _ := f.Open()
		body, _ := io.ReadAll(rc)
		all[f.Name] = string(body)
		for d := xml.NewDecoder(bytes.NewReader(body)); ; {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
		}
		if f.Modified.Year() != 2026 {
			t.Errorf("%s is dated %v", f.Name, f.Modified)
		}
	}
	if !strings.Contains(all["xl/styles.xml"], `<fgColor rgb="FFE9ECEF"/>`) {
		t.Error("the header's fill has no colour")
	}
	if parts[0] != "[Content_Types].xml" {
		t.Errorf("the first part is %s, where programs that sniff a file look for the content types", parts[0])
	}
	for i := range 3 {
		name := sheetPart(i)
		if _, ok := all[name]; !ok ||
			!strings.Contains(all["[Content_Types].xml"], `PartName="/`+name+`" ContentType="`+ctMain+`worksheet+xml"`) ||
			!strings.Contains(all["xl/_rels/workbook.xml.rels"], `Target="worksheets/`+strings.TrimPrefix(name, "xl/worksheets/")+`"`) {
			t.Errorf("sheet %s is not wholly in the package", name)
		}
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// A sheet with planned rows is written as its rows come; a sheet without
// is held until it ends.
func TestAPlannedSheetStreams(t *testing.T) {
	const rows = 100_000
	var out countingWriter
	bk, err := New(&out, Plan{Sheets: []Sheet{{Name: "Held"}, {Name: "Streamed", Widths: []float64{10, 10}, Rows: rows}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bk.Next(); err != nil {
		t.Fatal(err)
	}
	before := out.n
	for i := range rows {
		if err := bk.Row(0, "held row", i); err != nil {
			t.Fatal(err)
		}
	}
	if out.n != before {
		t.Errorf("a held sheet wrote %d bytes before it ended", out.n-before)
	}
	if err := bk.Next(); err != nil {
		t.Fatal(err)
	}
	before = out.n
	for i := range rows {
		if err := bk.Row(0, "streamed row", i); err != nil {
			t.Fatal(err)
		}
	}
	if out.n-before < 100<<10 {
		t.Errorf("a streamed sheet wrote %d bytes of %d rows before it ended", out.n-before, rows)
	}
	if err := bk.Close(); err != nil {
		t.Fatal(err)
	}
}

// What would make a workbook no program opens is refused, naming the sheet
// or the cell; after an error every call returns it.
func TestWhatNoReaderOpensIsRefused(t *testing.T) {
	plans := map[string][]Sheet{
		"no sheets":                         nil,
		`"A:B"`:                             {{Name: "A:B"}},
		`"` + strings.Repeat("x", 32) + `"`: {{Name: strings.Repeat("x", 32)}},
		"used twice":                        {{Name: "Rules"}, {Name: "RULES"}},
		"apostrophe":                        {{Name: "'quoted'"}},
		"columns' widths":                   {{Name: "S", Rows: 3}},
	}
	for want, sheets := range plans {
		if _, err := New(io.Discard, Plan{Sheets: sheets}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("plan %v: %v, want an error naming %s", sheets, err, want)
		}
	}
	rows := map[string]func(bk *Book) error{
		"past the sheet's last":                func(bk *Book) error { bk.Row(0, "a"); bk.Row(0, "b"); return bk.Row(0, "c") },
		"past the sheet's columns":             func(bk *Book) error { return bk.Row(0, "a", "b", "c") },
		`cell B1: NaN`:                         func(bk *Book) error { return bk.Row(0, "a", nan()) },
		"cell A1: no style 9":                  func(bk *Book) error { return bk.Row(0, Cell{Value: "a", Style: 9}) },
		"cell A1: a struct {}":                 func(bk *Book) error { return bk.Row(0, struct{}{}) },
		`"Planned": 1 rows written, 2 planned`: func(bk *Book) error { bk.Row(0, "a"); return bk.Close() },
		`sheet "Other" was never written`:      func(bk *Book) error { bk.Row(0, "a"); bk.Row(0, "b"); return bk.Close() },
	}
	for want, write := range rows {
		bk, err := New(io.Discard, Plan{Sheets: []Sheet{{Name: "Planned", Widths: []float64{1, 1}, Rows: 2}, {Name: "Other"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := bk.Next(); err != nil {
			t.Fatal(err)
		}
		err = write(bk)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want an error saying %s", err, want)
		}
		if again := bk.Close(); !errors.Is(again, err) {
			t.Errorf("after %v, Close returned %v", err, again)
		}
	}
}

func nan() float64 { zero := 0.0; return zero / zero }

func TestColumnLetters(t *testing.T) {
	for col, want := range map[int]string{0: "A1", 25: "Z1", 26: "AA1", 701: "ZZ1", 702: "AAA1", MaxColumns - 1: "XFD1"} {
		if got := cellRef(col, 1); got != want {
			t.Errorf("column %d is %s, want %s", col, got, want)
		}
	}
}
