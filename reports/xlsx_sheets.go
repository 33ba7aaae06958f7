package reports

import (
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/workbook"
)

func (b *xlsxBook) summary(in *Input) sheetPage {
	r := in.Report
	totals := r.Totals()
	union := map[string]money.Amount{}
	for _, t := range totals {
		for c := range t.Amounts {
			union[c] = 0
		}
	}
	currencies := findings.Currencies(union)
	widths := append([]float64{28, 10, 36, 10, 8, 10, 10, 8, 11}, repeat(16, len(currencies))...)
	return sheetPage{workbook.Sheet{Name: SheetSummary, Widths: widths}, func(add func(...any) error) error {
		s := r.Snapshot
		lines := [][]any{
			{workbook.Cell{Style: styleTitle, Value: fmt.Sprintf("billsnap reconciliation: %s (%s)", in.Verdict(), in.ExitText())}},
			{fmt.Sprintf("Snapshot %s (%s), taken %s", s.ID, s.Status, s.Started.UTC().Format(timeFormat))},
			{fmt.Sprintf("As of %s, %s; %s", r.AsOf.UTC().Format(timeFormat), periodText(r), previousText(r))},
			{},
		}
		for _, l := range lines {
			if err := add(l...); err != nil {
				return err
			}
		}
		head := []string{"Rule", "Severity", "Title", "Findings", "New", "Recurring", "Resolved", "Waived", "Not judged"}
		for _, c := range currencies {
			head = append(head, "Unwaived "+currencyLabel(c))
		}
		if err := add(headerRow(head...)...); err != nil {
			return err
		}
		for _, t := range totals {
			cells, err := b.amountCells(t.Amounts, t.AtStake, currencies)
			if err != nil {
				return err
			}
			row := []any{t.Rule.ID, t.Rule.Severity, t.Rule.Title, t.Count, t.New, t.Recurring, t.Resolved, t.Waived, t.NotJudged}
			if err := add(append(row, cells...)...); err != nil {
				return err
			}
		}
		if err := b.totalRows(add, r, currencies); err != nil {
			return err
		}
		if err := add(); err != nil {
			return err
		}
		if err := b.reasonRows(add, in, currencies); err != nil {
			return err
		}
		if err := addLines(add, "Not judged (values that arrived untyped; no finding is raised for them):", r.NotJudgedNotes()); err != nil {
			return err
		}
		if len(r.Material) == 0 {
			return add("Verdict: nothing material.")
		}
		for _, m := range append([]string{"Material:"}, r.Material...) {
			if err := add(m); err != nil {
				return err
			}
		}
		return nil
	}}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// ruleColumns are the columns of a rule sheet, and their widths.
var (
	ruleColumns = []string{"Status", "Entity", "Record ID", "Customer ID", "Customer", "Invoice", "Amount", "Currency", "Detail", "First seen", "Waived",
		"Waiver reason", "Waiver owner", "Waiver expires", "Waived by", "Live", "Waiver reason code", "Assignee", "Due", "Overdue", "Comments", "Resolution code"}
	ruleWidths = []float64{11, 20, 40, 40, 30, 16, 14, 9, 80, 22, 8, 30, 18, 12, 18, 11, 20, 18, 12, 9, 60, 20}
)

// rulePages are the rule sheets: a header, then a row per finding (to a
// sheet's last row; past it, the CSV has them).
func (b *xlsxBook) rulePages(r *findings.Report) []sheetPage {
	taken := map[string]bool{}
	for _, n := range []string{SheetSummary, SheetSnapshot, SheetSignOff, SheetFlux} {
		taken[strings.ToLower(n)] = true
	}
	var pages []sheetPage
	for _, spans := range ruleSheets(r) {
		rows := 0
		for _, span := range spans {
			rows += len(span)
		}
		rows = min(rows, workbook.MaxRows-1)
		sheet := workbook.Sheet{Name: sheetName(spans[0][0].Rule, taken), Widths: ruleWidths, HeaderRows: 1, Rows: rows + 1}
		pages = append(pages, sheetPage{sheet, func(add func(...any) error) error {
			if err := add(headerRow(ruleColumns...)...); err != nil {
				return err
			}
			left := rows
			for _, span := range spans {
				for _, f := range span[:min(len(span), left)] {
					if err := b.findingRow(add, f); err != nil {
						return err
					}
				}
				left -= min(len(span), left)
			}
			return nil
		}})
	}
	return pages
}

// findingRow adds a finding's row to its rule sheet.
func (b *xlsxBook) findingRow(add func(...any) error, f findings.Finding) error {
	amount, err := b.amountCell(f.Amount, f.Amount.Abs(), f.Currency)
	if err != nil {
		return err
	}
	row := []any{f.Status, f.Entity, f.EntityID, dash(f.CustomerID), dash(f.CustomerName), f.InvoiceNumber, amount, f.Currency, wrapped(f.Detail),
		f.FirstSeen, yes(f.Waiver != nil), nil, nil, nil, nil, f.Live}
	if wv := f.Waiver; wv != nil {
		row[11], row[12], row[13], row[14] = wv.Reason, wv.Owner, wv.Expires.Format("2006-01-02"), wv.By
	}
	code, assignee, due, overdue, comments, resolution := b.work.workCells(f)
	return add(append(row, code, assignee, due, overdue, wrapped(comments), resolution)...)
}

func (b *xlsxBook) snapshotPage(in *Input) sheetPage {
	widths := []float64{30, 22, 12, 12, 12, 12, 12, 8, 8, 10, 10, 40}
	return sheetPage{workbook.Sheet{Name: SheetSnapshot, Widths: widths}, func(add func(...any) error) error {
		s := in.Report.Snapshot
		for _, l := range [][]any{{"Snapshot", s.ID}, {"Status", s.Status}, {"Started", s.Started.UTC().Format(timeFormat)},
			{"Finished", s.Finished.UTC().Format(timeFormat)}, {"Duration", in.duration().String()}, {}} {
			if err := add(l...); err != nil {
				return err
			}
		}
		if err := add(headerRow("Table", "Collection", "TotalCount", "Records", "Distinct IDs", "Parquet rows", "DuckDB rows", "Walks", "Pages", "Seconds", "Complete", "Problem")...); err != nil {
			return err
		}
		for _, t := range in.Tables {
			if err := add(t.Table, t.Collection, optional(t.TotalCount), t.Received, optional(t.Distinct), t.ParquetRows, t.DuckDBRows,
				t.Walks, t.Pages, t.Seconds, t.Complete, t.Problem); err != nil {
				return err
			}
		}
		return b.fieldRows(add, in.fieldNotes())
	}}
}

// fieldRows adds the Snapshot sheet's fields: those whose values were
// coerced or untyped, then the new and absent ones.
func (b *xlsxBook) fieldRows(add func(...any) error, n manifest.FieldNotes) error {
	if err := add(); err != nil {
		return err
	}
	if len(n.Drifted) == 0 {
		if err := add("Fields: every typed field arrived in its own type."); err != nil {
			return err
		}
	} else if err := add(headerRow("Field", "Column", "Type", "Arrived as", "Coerced", "Untyped (NULL)", "Example record")...); err != nil {
		return err
	}
	for _, f := range n.Drifted {
		if err := add(f.Table+"."+f.Field, f.Column, f.Kind, f.ArrivedText(), f.Coerced, f.Untyped, f.Example); err != nil {
			return err
		}
	}
	var lines []string
	for _, f := range n.New {
		lines = append(lines, fmt.Sprintf("New field, no typed column (kept in _raw): %s.%s, %s", f.Table, f.Field, plural.Of(f.Received(), "record")))
	}
	for _, f := range n.Absent {
		lines = append(lines, fmt.Sprintf("Never arrived: %s.%s (%s)", f.Table, f.Field, f.Column))
	}
	return addLines(add, "", lines)
}

// addLines adds a heading (unless "") and a row per line, when there are
// lines.
func addLines(add func(...any) error, heading string, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	if heading != "" {
		lines = append([]string{heading}, lines...)
	}
	for _, l := range lines {
		if err := add(l); err != nil {
			return err
		}
	}
	return add()
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// optional is n, or an empty cell for a count a table does not have.
func optional(n int64) any {
	if n < 0 {
		return nil
	}
	return n
}

func (b *xlsxBook) signOffPage(in *Input) sheetPage {
	return sheetPage{workbook.Sheet{Name: SheetSignOff, Widths: []float64{18, 60}}, func(add func(...any) error) error {
		rows := [][]any{
			{workbook.Cell{Style: styleTitle, Value: "Sign-off"}},
			{"Snapshot", in.Report.Snapshot.ID},
			{"Verdict", fmt.Sprintf("%s (%s)", in.Verdict(), in.ExitText())},
			{},
			{workbook.Cell{Style: styleBold, Value: "Prepared by"}, workbook.Cell{Style: styleBox}},
			{workbook.Cell{Style: styleBold, Value: "Reviewed by"}, workbook.Cell{Style: styleBox}},
			{workbook.Cell{Style: styleBold, Value: "Date"}, workbook.Cell{Style: styleBox}},
			{workbook.Cell{Style: styleBold, Value: "Comments"}, workbook.Cell{Style: styleBox}},
		}
		if lines := in.SignOffLines(); len(lines) > 0 {
			rows = append(rows, []any{}, []any{workbook.Cell{Style: styleBold, Value: "Signed off in the workspace"}})
			for _, l := range lines {
				rows = append(rows, []any{l.At.UTC().Format(timeFormat), l.Text()})
			}
		}
		if lines := in.CloseLines(); len(lines) > 0 {
			rows = append(rows, []any{}, []any{workbook.Cell{Style: styleBold, Value: "Closed"}})
			for _, l := range lines {
				rows = append(rows, []any{"", l})
			}
		}
		for _, r := range rows {
			if err := add(r...); err != nil {
				return err
			}
		}
		return nil
	}}
}

// totalRows adds the net and the gross total per currency under the rules.
func (b *xlsxBook) totalRows(add func(...any) error, r *findings.Report, currencies []string) error {
	net, gross := netAndGross(r)
	for _, line := range []struct {
		label, note string
		amounts     map[string]money.Amount
	}{{"Total, net", "signed amounts added", net}, {"Total, gross", "absolute amounts added", gross}} {
		cells, err := b.amountCells(line.amounts, gross, currencies)
		if err != nil {
			return err
		}
		row := append([]any{line.label, nil, line.note}, make([]any, 6)...)
		if err := add(append(row, cells...)...); err != nil {
			return err
		}
	}
	return nil
}

// amountCells are the cells of amounts in the order of currencies, empty
// where a currency has none; gross are the absolute amounts they add up
// (amountCell).
func (b *xlsxBook) amountCells(amounts, gross map[string]money.Amount, currencies []string) ([]any, error) {
	cells := make([]any, len(currencies))
	for i, c := range currencies {
		a, ok := amounts[c]
		if !ok {
			continue
		}
		cell, err := b.amountCell(a, gross[c], c)
		if err != nil {
			return nil, err
		}
		cells[i] = cell
	}
	return cells, nil
}

// dash is s, or findings.NoCustomer when it is empty: a customer not
// known.
func dash(s string) string {
	if s == "" {
		return findings.NoCustomer
	}
	return s
}

// reasonRows are the summary's waived money by reason code: a header,
// then a row a code with its waived findings and, in the currencies'
// columns, their net amounts; nothing when no finding is waived.
func (b *xlsxBook) reasonRows(add func(...any) error, in *Input, currencies []string) error {
	rs := in.WaivedByReason()
	if len(rs) == 0 {
		return nil
	}
	head := []string{"Waived, by reason code", "", "", "Waived", "", "", "", "", ""}
	for _, c := range currencies {
		head = append(head, "Waived "+currencyLabel(c)+", net")
	}
	if err := add(headerRow(head...)...); err != nil {
		return err
	}
	for _, t := range rs {
		net := map[string]money.Amount{}
		for _, c := range currencies {
			if a, ok := t.Net[c]; ok {
				net[c] = a
			}
		}
		cells, err := b.amountCells(net, t.Gross, currencies)
		if err != nil {
			return err
		}
		if err := add(append([]any{t.Code, nil, nil, t.Count, nil, nil, nil, nil, nil}, cells...)...); err != nil {
			return err
		}
	}
	return add()
}
