package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/reconcile"
)

// Sheet names of the workbook besides one per rule with findings.
const (
	SheetSummary  = "Summary"
	SheetSnapshot = "Snapshot"
	SheetSignOff  = "Sign-off"
)

// xlsxBook is a workbook being written, with its styles.
type xlsxBook struct {
	f        *excelize.File
	bold     int
	title    int
	wrap     int
	box      int
	currency map[string]int // amount style per currency
}

// XLSX writes the workbook finance closes the month from: a Summary sheet,
// a sheet per rule with findings (IDs as text, amounts as numbers in their
// currency's format), a Snapshot sheet and a Sign-off sheet.
//
// excelize builds the workbook without the findings: each rule sheet has
// its header and a placeholder row. The findings' rows are then streamed
// into the archive while it is copied to w, so that memory does not grow
// with the findings (excelize's stream writer would hold each sheet's XML
// in memory up to 16 MB).
func XLSX(w io.Writer, in *Input) error {
	b, err := newBook()
	if err != nil {
		return err
	}
	defer b.f.Close()
	for _, f := range in.Report.Findings { // styles must exist before the skeleton is written
		if _, err := b.amountStyle(f.Currency); err != nil {
			return err
		}
	}
	sheets := ruleSheets(in.Report)
	steps := []func(*Input) error{b.summary}
	for i, spans := range sheets {
		steps = append(steps, func(*Input) error { return b.ruleSheet(i, spans) })
	}
	for _, step := range append(steps, b.snapshotSheet, b.signOff) {
		if err := step(in); err != nil {
			return err
		}
	}
	var skeleton bytes.Buffer
	if err := b.f.Write(&skeleton); err != nil {
		return err
	}
	return b.splice(w, skeleton.Bytes(), sheets)
}

func newBook() (*xlsxBook, error) {
	b := &xlsxBook{f: excelize.NewFile(), currency: map[string]int{}}
	styles := []struct {
		dst *int
		s   *excelize.Style
	}{
		{&b.bold, &excelize.Style{Font: &excelize.Font{Bold: true, Family: "Calibri", Size: 11}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E9ECEF"}}}},
		{&b.title, &excelize.Style{Font: &excelize.Font{Bold: true, Family: "Calibri", Size: 14}}},
		{&b.wrap, &excelize.Style{Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}},
		{&b.box, &excelize.Style{Border: []excelize.Border{{Type: "bottom", Color: "868E96", Style: 1}}}},
	}
	for _, st := range styles {
		id, err := b.f.NewStyle(st.s)
		if err != nil {
			return nil, err
		}
		*st.dst = id
	}
	return b, nil
}

// amountStyle is the number format of amounts in cur: 1,234.50 EUR.
func (b *xlsxBook) amountStyle(cur string) (int, error) {
	if id, ok := b.currency[cur]; ok {
		return id, nil
	}
	code := strings.ReplaceAll(cur, `"`, "")
	format := fmt.Sprintf(`#,##0.00 "%s";-#,##0.00 "%s";0.00 "%s"`, code, code, code)
	id, err := b.f.NewStyle(&excelize.Style{CustomNumFmt: &format})
	b.currency[cur] = id
	return id, err
}

// amountCell is an amount as a number (in its currency's format).
func (b *xlsxBook) amountCell(a money.Amount, cur string) (excelize.Cell, error) {
	style, err := b.amountStyle(cur)
	return excelize.Cell{StyleID: style, Value: float64(a) / 100}, err
}

// stream writes rows to a new sheet.
func (b *xlsxBook) stream(name string, widths []float64, rows func(add func(...any) error) error) error {
	// The new book's first sheet becomes the first one written (Summary),
	// so that nothing has to be deleted or activated afterwards: both
	// would parse every streamed sheet back into memory.
	if first := b.f.GetSheetName(0); first == "Sheet1" {
		if err := b.f.SetSheetName(first, name); err != nil {
			return err
		}
	} else if _, err := b.f.NewSheet(name); err != nil {
		return err
	}
	if err := b.printSetup(name); err != nil { // before streaming: the stream writer keeps it
		return err
	}
	sw, err := b.f.NewStreamWriter(name)
	if err != nil {
		return err
	}
	for i, w := range widths {
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return err
		}
	}
	row := 1
	add := func(cells ...any) error {
		cell, _ := excelize.CoordinatesToCellName(1, row)
		row++
		opts := rowHeight(cells, widths) // before unwrap, which replaces the wrapped cells
		return sw.SetRow(cell, b.unwrap(cells), opts...)
	}
	if err := rows(add); err != nil {
		return err
	}
	return sw.Flush()
}

// printSetup prints a sheet landscape, as wide as one page, with its
// header row repeated.
func (b *xlsxBook) printSetup(name string) error {
	landscape, one, tall := "landscape", 1, 0
	if err := b.f.SetPageLayout(name, &excelize.PageLayoutOptions{Orientation: &landscape, FitToWidth: &one, FitToHeight: &tall}); err != nil {
		return err
	}
	fit := true
	return b.f.SetSheetProps(name, &excelize.SheetPropsOptions{FitToPage: &fit})
}

// rowHeight gives a row with wrapped text the lines it needs: a streamed
// sheet stores row heights, and a reader does not grow them by itself.
func rowHeight(cells []any, widths []float64) []excelize.RowOpts {
	lines := 1
	for i, c := range cells {
		cell, ok := c.(wrapped)
		if !ok || i >= len(widths) {
			continue
		}
		perLine := max(int(widths[i]*1.1), 10)
		lines = max(lines, (len([]rune(string(cell)))+perLine-1)/perLine)
	}
	if lines == 1 {
		return nil
	}
	return []excelize.RowOpts{{Height: 15 * float64(lines)}}
}

// wrapped is a text cell that wraps within its column.
type wrapped string

// unwrap turns wrapped cells into styled cells.
func (b *xlsxBook) unwrap(cells []any) []any {
	for i, c := range cells {
		if w, ok := c.(wrapped); ok {
			cells[i] = excelize.Cell{StyleID: b.wrap, Value: string(w)}
		}
	}
	return cells
}

func (b *xlsxBook) header(names ...string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = excelize.Cell{StyleID: b.bold, Value: n}
	}
	return out
}

// sheetName makes a rule ID a valid, unique sheet name (31 characters).
func sheetName(id string, taken map[string]bool) string {
	name := id
	for _, bad := range []string{":", "\\", "/", "?", "*", "[", "]"} {
		name = strings.ReplaceAll(name, bad, "_")
	}
	if len(name) > 31 {
		name = name[:31]
	}
	for n := 2; taken[strings.ToLower(name)]; n++ {
		suffix := fmt.Sprintf("~%d", n)
		name = name[:min(len(name), 31-len(suffix))] + suffix
	}
	taken[strings.ToLower(name)] = true
	return name
}

// ruleSheets groups the report's findings by rule (open and resolved
// together), in rule order, as views of the report's findings.
func ruleSheets(r *reconcile.Report) [][][]reconcile.Finding {
	spans := ruleSpans(r)
	var out [][][]reconcile.Finding
	for _, rule := range r.Rules {
		if s := spans[rule.ID]; len(s) > 0 {
			out = append(out, s)
		}
	}
	return out
}
