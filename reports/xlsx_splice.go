package reports

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/reconcile"
)

// maxSheetRows is the most rows a sheet can have.
const maxSheetRows = 1 << 20

var dimension = regexp.MustCompile(`<dimension ref="[^"]*"`)

// placeholder is the text of the row that splice replaces in rule sheet i.
func placeholder(i int) string { return fmt.Sprintf("[billsnap findings of sheet %d]", i) }

// splice copies the skeleton workbook to w, replacing each rule sheet's
// placeholder row with its findings, one row at a time.
func (b *xlsxBook) splice(w io.Writer, skeleton []byte, sheets [][][]reconcile.Finding) error {
	zr, err := zip.NewReader(bytes.NewReader(skeleton), int64(len(skeleton)))
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	for _, f := range zr.File {
		if err := b.copyEntry(zw, f, sheets); err != nil {
			return fmt.Errorf("xlsx %s: %w", f.Name, err)
		}
	}
	return zw.Close()
}

func (b *xlsxBook) copyEntry(zw *zip.Writer, f *zip.File, sheets [][][]reconcile.Finding) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	hdr := f.FileHeader
	out, err := zw.CreateHeader(&zip.FileHeader{Name: hdr.Name, Method: zip.Deflate, Modified: hdr.Modified})
	if err != nil {
		return err
	}
	if !strings.HasPrefix(f.Name, "xl/worksheets/sheet") {
		_, err := io.Copy(out, rc)
		return err
	}
	data, err := io.ReadAll(rc) // a skeleton sheet: a few kilobytes
	if err != nil {
		return err
	}
	for i, spans := range sheets {
		if at := bytes.Index(data, []byte(placeholder(i))); at >= 0 {
			return b.fillSheet(out, data, at, spans)
		}
	}
	_, err = out.Write(data)
	return err
}

// fillSheet writes sheet data with the row around offset at replaced by
// the findings' rows, and its dimension fitted to them.
func (b *xlsxBook) fillSheet(out io.Writer, data []byte, at int, spans [][]reconcile.Finding) error {
	start := bytes.LastIndex(data[:at], []byte("<row "))
	end := at + bytes.Index(data[at:], []byte("</row>")) + len("</row>")
	if start < 0 || end < at {
		return fmt.Errorf("placeholder row not found")
	}
	rows := 0
	for _, span := range spans {
		rows += len(span)
	}
	rows = min(rows, maxSheetRows-1) // past a sheet's last row, the CSV has them
	head := dimension.ReplaceAll(data[:start], fmt.Appendf(nil, `<dimension ref="A1:K%d"`, rows+1))
	bw := bufio.NewWriterSize(out, 64<<10)
	bw.Write(head)
	n := 2
	for _, span := range spans {
		for _, f := range span {
			if n > maxSheetRows {
				break
			}
			if err := b.findingRow(bw, n, f); err != nil {
				return err
			}
			n++
		}
	}
	bw.Write(data[end:])
	return bw.Flush()
}

// findingRow writes one finding as SpreadsheetML row n.
func (b *xlsxBook) findingRow(w *bufio.Writer, n int, f reconcile.Finding) error {
	amountStyle, err := b.amountStyle(f.Currency)
	if err != nil {
		return err
	}
	row := strconv.Itoa(n)
	w.WriteString(`<row r="` + row + `"`)
	if h := rowHeight([]any{nil, nil, nil, nil, nil, wrapped(f.Detail)}, ruleWidths); h != nil {
		w.WriteString(` ht="` + strconv.FormatFloat(h[0].Height, 'f', -1, 64) + `" customHeight="1"`)
	}
	w.WriteString(">")
	texts := []string{f.Status, f.Entity, f.EntityID}
	for i, t := range texts {
		inlineString(w, string(rune('A'+i))+row, t, 0)
	}
	w.WriteString(`<c r="D` + row + `" s="` + strconv.Itoa(amountStyle) + `"><v>` + strconv.FormatFloat(float64(f.Amount)/100, 'f', -1, 64) + `</v></c>`)
	inlineString(w, "E"+row, f.Currency, 0)
	inlineString(w, "F"+row, f.Detail, b.wrap)
	inlineString(w, "G"+row, f.FirstSeen, 0)
	inlineString(w, "H"+row, yes(f.Waiver != nil), 0)
	if wv := f.Waiver; wv != nil {
		inlineString(w, "I"+row, wv.Reason, 0)
		inlineString(w, "J"+row, wv.Owner, 0)
		inlineString(w, "K"+row, wv.Expires.Format("2006-01-02"), 0)
		inlineString(w, "L"+row, wv.By, 0)
	}
	inlineString(w, "M"+row, f.Live, 0)
	_, err = w.WriteString("</row>")
	return err
}

// inlineString writes a text cell; an empty text writes nothing.
func inlineString(w *bufio.Writer, ref, text string, style int) {
	if text == "" {
		return
	}
	w.WriteString(`<c r="` + ref + `" t="inlineStr"`)
	if style > 0 {
		w.WriteString(` s="` + strconv.Itoa(style) + `"`)
	}
	w.WriteString(`><is><t xml:space="preserve">`)
	xml.EscapeText(w, []byte(text))
	w.WriteString(`</t></is></c>`)
}
