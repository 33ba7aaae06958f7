// Package workbook writes Office Open XML spreadsheets (.xlsx, ECMA-376
// SpreadsheetML, transitional) as a stream, row by row, with only what
// billsnap's reports use: text, number and boolean cells, a few cell
// styles, column widths, row heights, frozen and printed header rows,
// landscape printing one page wide.
//
// A Book is planned whole before its first row (its sheets and styles), so
// that the archive is written in the order spreadsheet programs write it:
// the package's parts first, then the sheets. A sheet whose row count is
// planned streams its rows into the archive as they come; any other sheet
// is held in memory until it ends.
//
// The limits of a sheet are kept ([MaxRows], [MaxColumns]): a plan or a
// row that would break them is refused with an error. A text longer than a
// cell holds ([MaxCellText], counted in UTF-16 units as spreadsheet
// programs count) is cut, the cut marked with an ellipsis.
package workbook

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of a sheet (ECMA-376 and the programs that read it).
const (
	MaxRows      = 1 << 20 // rows of a sheet
	MaxColumns   = 1 << 14 // columns of a sheet (A to XFD)
	MaxCellText  = 32767   // characters of a text cell
	maxSheetName = 31
)

// Style is how a cell looks. The zero Style is the default (Calibri 11,
// General number format).
type Style struct {
	Bold   bool
	Size   float64 // font size in points; 0 is 11
	Fill   string  // RGB hex of a solid background, "" for none
	Wrap   bool    // text wraps within the column, aligned to the top
	Bottom string  // RGB hex of a thin bottom border, "" for none
	NumFmt string  // number format code, "" for General
}

// Sheet is a sheet of the plan.
type Sheet struct {
	Name       string    // 1–31 characters, none of : \ / ? * [ ], unique ignoring case
	Widths     []float64 // column widths in characters, from column A
	Landscape  bool      // printed landscape, one page wide
	HeaderRows int       // rows frozen at the top and printed on every page
	// Rows, when above 0, is the number of rows the sheet will have, and
	// they are streamed; the sheet's columns are then those of Widths.
	// When 0, the rows are held until the sheet ends.
	Rows int
}

// Plan is a whole workbook: its styles (a cell's style is its index in
// Styles plus one; 0 is the default style) and its sheets, in order.
type Plan struct {
	Styles   []Style
	Sheets   []Sheet
	Modified time.Time // the archive entries' time
}

// Cell is a value with a style. Values are string (text, "" for no
// cell), bool, any integer or float type, or nil (no cell).
type Cell struct {
	Value any
	Style int
}

// Book is a workbook being written.
type Book struct {
	zw    *zip.Writer
	plan  Plan
	next  int    // index of the next sheet
	cur   *sheet // the sheet being written, or nil
	fault error  // the first error; every later call returns it
}

// New checks the plan and writes the workbook's parts; the sheets follow,
// one by one, through Next and Row. Close ends the archive (not w).
func New(w io.Writer, p Plan) (*Book, error) {
	if err := check(p); err != nil {
		return nil, err
	}
	b := &Book{zw: zip.NewWriter(w), plan: p}
	parts := []struct {
		name string
		body func(*bytes.Buffer)
	}{
		{"[Content_Types].xml", b.contentTypes},
		{"_rels/.rels", packageRels},
		{"xl/workbook.xml", b.workbook},
		{"xl/_rels/workbook.xml.rels", b.workbookRels},
		{"xl/styles.xml", b.styles},
	}
	var buf bytes.Buffer
	for _, part := range parts {
		buf.Reset()
		buf.WriteString(xml.Header)
		part.body(&buf)
		if err := b.entry(part.name, buf.Bytes()); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// check refuses a plan that would make a workbook no program opens.
func check(p Plan) error {
	if len(p.Sheets) == 0 {
		return errors.New("workbook: no sheets")
	}
	seen := map[string]bool{}
	for _, s := range p.Sheets {
		if err := checkName(s.Name); err != nil {
			return err
		}
		key := strings.ToLower(s.Name)
		if seen[key] {
			return fmt.Errorf("workbook: sheet name %q is used twice", s.Name)
		}
		seen[key] = true
		if s.Rows < 0 || s.Rows > MaxRows || len(s.Widths) > MaxColumns || s.HeaderRows < 0 || s.HeaderRows > MaxRows {
			return fmt.Errorf("workbook: sheet %q: rows, columns or header rows out of range", s.Name)
		}
		if s.Rows > 0 && len(s.Widths) == 0 {
			return fmt.Errorf("workbook: sheet %q: planned rows need the columns' widths", s.Name)
		}
	}
	return nil
}

func checkName(name string) error {
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0 || n > maxSheetName:
		return fmt.Errorf("workbook: sheet name %q: 1 to %d characters", name, maxSheetName)
	case strings.ContainsAny(name, `:\/?*[]`):
		return fmt.Errorf(`workbook: sheet name %q: none of : \ / ? * [ ]`, name)
	case strings.HasPrefix(name, "'") || strings.HasSuffix(name, "'"):
		return fmt.Errorf("workbook: sheet name %q: no apostrophe first or last", name)
	}
	return nil
}

// entry writes one whole part of the archive.
func (b *Book) entry(name string, body []byte) error {
	w, err := b.create(name)
	if err == nil {
		_, err = w.Write(body)
	}
	return err
}

func (b *Book) create(name string) (io.Writer, error) {
	return b.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: b.plan.Modified})
}

// Next ends the sheet being written and starts the next one of the plan.
func (b *Book) Next() error {
	if b.fault != nil {
		return b.fault
	}
	if err := b.end(); err != nil {
		return b.fail(err)
	}
	if b.next == len(b.plan.Sheets) {
		return b.fail(errors.New("workbook: every planned sheet is written"))
	}
	s, err := b.start(b.next)
	if err != nil {
		return b.fail(err)
	}
	b.next++
	b.cur = s
	return nil
}

// Row adds a row to the sheet being written: cells from column A, each a
// value or a Cell; height is in points, 0 for the default.
func (b *Book) Row(height float64, cells ...any) error {
	if b.fault != nil {
		return b.fault
	}
	if b.cur == nil {
		return b.fail(errors.New("workbook: a row before the first sheet"))
	}
	return b.fail(b.cur.row(height, cells, len(b.plan.Styles)))
}

// Close ends the last sheet and the archive. Every planned sheet must have
// been started.
func (b *Book) Close() error {
	if b.fault != nil {
		return b.fault
	}
	if err := b.end(); err != nil {
		return b.fail(err)
	}
	if b.next != len(b.plan.Sheets) {
		return b.fail(fmt.Errorf("workbook: sheet %q was never written", b.plan.Sheets[b.next].Name))
	}
	return b.fail(b.zw.Close())
}

// fail keeps the first error.
func (b *Book) fail(err error) error {
	if b.fault == nil && err != nil {
		b.fault = err
	}
	return err
}
