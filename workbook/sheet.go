package workbook

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// sheet is the sheet being written: its rows go to out, the archive entry
// itself when the rows are planned, else a buffer written at the end.
type sheet struct {
	plan    Sheet
	entry   io.Writer     // the archive entry
	held    *bytes.Buffer // the rows, when not planned
	out     *bufio.Writer // where rows go
	rows    int           // rows written
	columns int           // the most cells of a row
	num     []byte        // the current row's number
	scratch []byte        // a number's text
}

func (b *Book) start(i int) (*sheet, error) {
	entry, err := b.create(sheetPart(i))
	if err != nil {
		return nil, err
	}
	s := &sheet{plan: b.plan.Sheets[i], entry: entry}
	if s.plan.Rows > 0 {
		s.out = bufio.NewWriterSize(entry, 64<<10)
		s.head(s.out, i == 0, s.plan.Rows, len(s.plan.Widths))
	} else {
		s.held = &bytes.Buffer{}
		s.out = bufio.NewWriter(s.held)
	}
	return s, nil
}

// end writes the rest of the sheet being written, if any.
func (b *Book) end() error {
	s := b.cur
	if s == nil {
		return nil
	}
	b.cur = nil
	if s.plan.Rows > 0 && s.rows != s.plan.Rows {
		return fmt.Errorf("workbook: sheet %q: %d rows written, %d planned", s.plan.Name, s.rows, s.plan.Rows)
	}
	if err := s.out.Flush(); err != nil {
		return err
	}
	out := bufio.NewWriterSize(s.entry, 64<<10)
	if s.held != nil {
		s.head(out, b.next == 1, s.rows, s.columns)
		out.Write(s.held.Bytes())
	}
	out.WriteString(`</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>`)
	if s.plan.Landscape {
		out.WriteString(`<pageSetup orientation="landscape" fitToWidth="1" fitToHeight="0"/>`)
	}
	out.WriteString(`</worksheet>`)
	return out.Flush()
}

// head writes the sheet's XML up to its first row.
func (s *sheet) head(w *bufio.Writer, first bool, rows, columns int) {
	w.WriteString(xmlHeader + `<worksheet xmlns="` + nsMain + `" xmlns:r="` + nsRels + `">`)
	if s.plan.Landscape {
		w.WriteString(`<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>`)
	}
	if rows > 0 && columns > 0 {
		w.WriteString(`<dimension ref="A1:` + cellRef(columns-1, rows) + `"/>`)
	}
	w.WriteString(`<sheetViews><sheetView workbookViewId="0"`)
	if first {
		w.WriteString(` tabSelected="1"`)
	}
	if h := s.plan.HeaderRows; h > 0 {
		top := cellRef(0, h+1)
		fmt.Fprintf(w, `><pane ySplit="%d" topLeftCell="%s" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="%s" sqref="%s"/></sheetView>`, h, top, top, top)
	} else {
		w.WriteString(`/>`)
	}
	w.WriteString(`</sheetViews><sheetFormatPr defaultRowHeight="15"/>`)
	if len(s.plan.Widths) > 0 {
		w.WriteString(`<cols>`)
		for i, width := range s.plan.Widths {
			fmt.Fprintf(w, `<col min="%d" max="%d" width="%s" customWidth="1"/>`, i+1, i+1, strconv.FormatFloat(width, 'f', -1, 64))
		}
		w.WriteString(`</cols>`)
	}
	w.WriteString(`<sheetData>`)
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

// row writes one row; styles is the number of planned styles.
func (s *sheet) row(height float64, cells []any, styles int) error {
	n := s.rows + 1
	switch {
	case n > MaxRows || (s.plan.Rows > 0 && n > s.plan.Rows):
		return fmt.Errorf("workbook: sheet %q: row %d is past the sheet's last", s.plan.Name, n)
	case len(cells) > MaxColumns || (s.plan.Rows > 0 && len(cells) > len(s.plan.Widths)):
		return fmt.Errorf("workbook: sheet %q row %d: %d cells, past the sheet's columns", s.plan.Name, n, len(cells))
	}
	s.rows = n
	s.num = strconv.AppendInt(s.num[:0], int64(n), 10)
	w := s.out
	w.WriteString(`<row r="`)
	w.Write(s.num)
	w.WriteString(`"`)
	if height > 0 {
		w.WriteString(` ht="` + strconv.FormatFloat(height, 'f', -1, 64) + `" customHeight="1"`)
	}
	w.WriteString(`>`)
	for i, c := range cells {
		cell, ok := c.(Cell)
		if !ok {
			cell = Cell{Value: c}
		}
		if cell.Style < 0 || cell.Style > styles {
			return fmt.Errorf("workbook: sheet %q cell %s: no style %d", s.plan.Name, cellRef(i, n), cell.Style)
		}
		wrote, err := s.cell(i, cell)
		if err != nil {
			return fmt.Errorf("workbook: sheet %q cell %s: %w", s.plan.Name, cellRef(i, n), err)
		}
		if wrote {
			s.columns = max(s.columns, i+1)
		}
	}
	_, err := w.WriteString(`</row>`)
	return err
}

// cell writes the cell of column col in the current row, if it has a
// value or a style: text inline, numbers and booleans as values.
func (s *sheet) cell(col int, c Cell) (bool, error) {
	kind, err := kindOf(c.Value)
	if err != nil || (kind == none && c.Style == 0) {
		return false, err
	}
	w := s.out
	w.WriteString(`<c r="`)
	writeColumn(w, col)
	w.Write(s.num)
	w.WriteString(`"`)
	if c.Style > 0 {
		w.WriteString(` s="`)
		w.Write(strconv.AppendInt(s.scratch[:0], int64(c.Style), 10))
		w.WriteString(`"`)
	}
	switch kind {
	case none:
		w.WriteString(`/>`)
	case text:
		w.WriteString(` t="inlineStr"><is><t xml:space="preserve">`)
		writeEscaped(w, clip(c.Value.(string)))
		w.WriteString(`</t></is></c>`)
	case boolean:
		v := "0"
		if c.Value.(bool) {
			v = "1"
		}
		w.WriteString(` t="b"><v>` + v + `</v></c>`)
	default:
		w.WriteString(`><v>`)
		w.Write(s.appendNumber(c.Value))
		w.WriteString(`</v></c>`)
	}
	return true, nil
}

// Kinds of cell values.
const (
	none = iota
	text
	boolean
	number
)

// kindOf is how a value is stored, or an error for a value no sheet holds.
func kindOf(v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return none, nil
	case string:
		if x == "" {
			return none, nil
		}
		return text, nil
	case bool:
		return boolean, nil
	case int, int64, float64:
	default:
		switch reflect.ValueOf(v).Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32:
		default:
			return none, fmt.Errorf("a %T is no cell value", v)
		}
	}
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return none, fmt.Errorf("%v is no number a sheet holds", f)
	}
	return number, nil
}

// appendNumber is a number's text in the sheet's scratch space.
func (s *sheet) appendNumber(v any) []byte {
	switch x := v.(type) {
	case int:
		return strconv.AppendInt(s.scratch[:0], int64(x), 10)
	case int64:
		return strconv.AppendInt(s.scratch[:0], x, 10)
	case float64:
		return strconv.AppendFloat(s.scratch[:0], x, 'g', -1, 64)
	}
	r := reflect.ValueOf(v)
	switch {
	case r.CanInt():
		return strconv.AppendInt(s.scratch[:0], r.Int(), 10)
	case r.CanUint():
		return strconv.AppendUint(s.scratch[:0], r.Uint(), 10)
	}
	return strconv.AppendFloat(s.scratch[:0], r.Float(), 'g', -1, 32)
}

// clip cuts a text to the characters a cell holds (UTF-16 units, as
// spreadsheet programs count), marking the cut with an ellipsis.
func clip(s string) string {
	if len(s) <= MaxCellText { // a rune has no more UTF-16 units than bytes
		return s
	}
	units := 0
	for _, r := range s {
		units += utf16.RuneLen(r)
	}
	if units <= MaxCellText {
		return s
	}
	units = 0
	for i, r := range s {
		if units+utf16.RuneLen(r) > MaxCellText-1 {
			return s[:i] + "…"
		}
		units += utf16.RuneLen(r)
	}
	return s
}

// writeEscaped writes s as XML text or an attribute's value, replacing
// what XML 1.0 cannot hold with U+FFFD, as encoding/xml does (without its
// copy of s).
func writeEscaped(w io.StringWriter, s string) {
	last := 0
	for i, r := range s {
		var esc string
		switch {
		case r == '&':
			esc = "&amp;"
		case r == '<':
			esc = "&lt;"
		case r == '>':
			esc = "&gt;"
		case r == '"':
			esc = "&#34;"
		case r == '\'':
			esc = "&#39;"
		case r == '\t':
			esc = "&#x9;"
		case r == '\n':
			esc = "&#xA;"
		case r == '\r':
			esc = "&#xD;"
		case r < 0x20 || (r >= 0xD800 && r <= 0xDFFF) || r == 0xFFFE || r == 0xFFFF || (r == utf8.RuneError && isBad(s[i:])):
			esc = "\uFFFD"
		default:
			continue
		}
		w.WriteString(s[last:i])
		w.WriteString(esc)
		last = i + utf8.RuneLen(r)
		if r == utf8.RuneError {
			last = i + 1
		}
	}
	w.WriteString(s[last:])
}

// isBad reports whether s starts with a byte that is not UTF-8.
func isBad(s string) bool {
	_, size := utf8.DecodeRuneInString(s)
	return size == 1
}

// writeColumn writes the letters of column col (from 0).
func writeColumn(w io.ByteWriter, col int) {
	if col < 26 {
		w.WriteByte(byte('A' + col))
		return
	}
	writeColumn(w, col/26-1)
	w.WriteByte(byte('A' + col%26))
}

// cellRef is the A1 reference of column col (from 0) in row (from 1).
func cellRef(col, row int) string {
	var b strings.Builder
	writeColumn(&b, col)
	return b.String() + strconv.Itoa(row)
}
