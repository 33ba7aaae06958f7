package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/workbook"
)

// Sheet names of the workbook besides one per rule with findings.
const (
	SheetSummary  = "Summary"
	SheetSnapshot = "Snapshot"
	SheetSignOff  = "Sign-off"
)

// The workbook's styles (workbook.Plan.Styles, from 1); the amount style
// of each currency follows them.
const (
	styleBold = 1 + iota
	styleTitle
	styleWrap
	styleBox
)

var fixedStyles = []workbook.Style{
	{Bold: true, Fill: "E9ECEF"},
	{Bold: true, Size: 14},
	{Wrap: true},
	{Bottom: "868E96"},
}

// xlsxBook is the report's workbook: its amount style per currency.
type xlsxBook struct {
	currency map[string]int
	work     WorkOf // the findings' work, for the rule sheets
}

// sheetPage is a sheet of the workbook and what fills it, row by row.
type sheetPage struct {
	workbook.Sheet
	fill func(add func(...any) error) error
}

// XLSX writes the workbook finance closes the month from: a Summary sheet,
// a sheet per rule with findings (IDs as text, amounts as numbers in their
// currency's format, the header row frozen and printed on every page), a
// Snapshot sheet and a Sign-off sheet, each printed landscape, one page
// wide. The findings stream into the archive: memory does not grow with
// them.
func XLSX(w io.Writer, in *Input) error {
	b := &xlsxBook{currency: map[string]int{}, work: in.Work}
	plan := workbook.Plan{Styles: b.styles(in.Report), Modified: in.Generated}
	pages := append([]sheetPage{b.summary(in)}, b.rulePages(in.Report)...)
	pages = append(pages, b.snapshotPage(in), b.signOffPage(in))
	if in.Flux != nil {
		pages = append(pages, b.fluxPage(in))
	}
	for _, p := range pages {
		p.Landscape = true
		plan.Sheets = append(plan.Sheets, p.Sheet)
	}
	bk, err := workbook.New(w, plan)
	if err != nil {
		return err
	}
	for _, p := range pages {
		if err := bk.Next(); err != nil {
			return err
		}
		add := func(cells ...any) error {
			height := rowHeight(cells, p.Widths) // before unwrap, which replaces the wrapped cells
			return bk.Row(height, unwrap(cells)...)
		}
		if err := p.fill(add); err != nil {
			return err
		}
	}
	return bk.Close()
}

// styles are the workbook's styles: the fixed ones, then an amount style
// for each currency of the report's findings.
func (b *xlsxBook) styles(r *findings.Report) []workbook.Style {
	styles := append([]workbook.Style(nil), fixedStyles...)
	add := func(cur string) {
		if _, ok := b.currency[cur]; ok {
			return
		}
		code := strings.ReplaceAll(cur, `"`, "")
		format := fmt.Sprintf(`#,##0.00 "%s";-#,##0.00 "%s";0.00 "%s"`, code, code, code)
		styles = append(styles, workbook.Style{NumFmt: format})
		b.currency[cur] = len(styles)
	}
	for _, f := range r.Findings { // the totals' currencies are the findings'
		add(f.Currency)
	}
	return styles
}

// amountCell is an amount as a number (in its currency's format), or the
// text findings.NoMoney when the findings it adds up carry no money (gross,
// their absolute amounts, is 0).
func (b *xlsxBook) amountCell(a, gross money.Amount, cur string) (workbook.Cell, error) {
	style, ok := b.currency[cur]
	if !ok {
		return workbook.Cell{}, fmt.Errorf("xlsx: no amount style for currency %q", cur)
	}
	if gross == 0 {
		return workbook.Cell{Value: findings.NoMoney}, nil
	}
	return workbook.Cell{Style: style, Value: float64(a) / 100}, nil
}

// rowHeight gives a row with wrapped text the lines it needs (0 for one
// line): a reader does not grow a row by itself.
func rowHeight(cells []any, widths []float64) float64 {
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
		return 0
	}
	return 15 * float64(lines)
}

// wrapped is a text cell that wraps within its column.
type wrapped string

// unwrap turns wrapped cells into styled cells.
func unwrap(cells []any) []any {
	for i, c := range cells {
		if w, ok := c.(wrapped); ok {
			cells[i] = workbook.Cell{Style: styleWrap, Value: string(w)}
		}
	}
	return cells
}

func headerRow(names ...string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = workbook.Cell{Style: styleBold, Value: n}
	}
	return out
}

// sheetName makes a rule ID a valid, unique sheet name (31 characters).
func sheetName(id string, taken map[string]bool) string {
	name := id
	for _, bad := range []string{":", "\\", "/", "?", "*", "[", "]"} {
		name = strings.ReplaceAll(name, bad, "_")
	}
	name = strings.Trim(name, "'")
	if r := []rune(name); len(r) > 31 {
		name = string(r[:31])
	}
	if name == "" {
		name = "rule"
	}
	base := []rune(name)
	for n := 2; taken[strings.ToLower(name)]; n++ {
		suffix := fmt.Sprintf("~%d", n)
		name = string(base[:min(len(base), 31-len(suffix))]) + suffix
	}
	taken[strings.ToLower(name)] = true
	return name
}

// ruleSheets groups the report's findings by rule (open and resolved
// together), in rule order, as views of the report's findings.
func ruleSheets(r *findings.Report) [][][]findings.Finding {
	spans := ruleSpans(r)
	var out [][][]findings.Finding
	for _, rule := range r.Rules {
		if s := spans[rule.ID]; len(s) > 0 {
			out = append(out, s)
		}
	}
	return out
}
