package workbook

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

const (
	nsMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRels = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsPkg  = "http://schemas.openxmlformats.org/package/2006/relationships"
	ctMain = "application/vnd.openxmlformats-officedocument.spreadsheetml."
)

// sheetPart is the archive path of sheet i (from 0).
func sheetPart(i int) string { return fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1) }

func (b *Book) contentTypes(w *bytes.Buffer) {
	w.WriteString(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`)
	w.WriteString(`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>`)
	w.WriteString(`<Default Extension="xml" ContentType="application/xml"/>`)
	w.WriteString(`<Override PartName="/xl/workbook.xml" ContentType="` + ctMain + `sheet.main+xml"/>`)
	w.WriteString(`<Override PartName="/xl/styles.xml" ContentType="` + ctMain + `styles+xml"/>`)
	for i := range b.plan.Sheets {
		w.WriteString(`<Override PartName="/` + sheetPart(i) + `" ContentType="` + ctMain + `worksheet+xml"/>`)
	}
	w.WriteString(`</Types>`)
}

func packageRels(w *bytes.Buffer) {
	w.WriteString(`<Relationships xmlns="` + nsPkg + `">`)
	w.WriteString(`<Relationship Id="rId1" Type="` + nsRels + `/officeDocument" Target="xl/workbook.xml"/>`)
	w.WriteString(`</Relationships>`)
}

// workbook lists the sheets, and the rows each prints on every page.
func (b *Book) workbook(w *bytes.Buffer) {
	w.WriteString(`<workbook xmlns="` + nsMain + `" xmlns:r="` + nsRels + `">`)
	w.WriteString(`<bookViews><workbookView activeTab="0"/></bookViews><sheets>`)
	for i, s := range b.plan.Sheets {
		w.WriteString(`<sheet name="`)
		writeEscaped(w, s.Name)
		fmt.Fprintf(w, `" sheetId="%d" r:id="rId%d"/>`, i+1, i+1)
	}
	w.WriteString(`</sheets>`)
	var names bytes.Buffer
	for i, s := range b.plan.Sheets {
		if s.HeaderRows > 0 {
			fmt.Fprintf(&names, `<definedName name="_xlnm.Print_Titles" localSheetId="%d">`, i)
			writeEscaped(&names, fmt.Sprintf("'%s'!$1:$%d", strings.ReplaceAll(s.Name, "'", "''"), s.HeaderRows))
			names.WriteString(`</definedName>`)
		}
	}
	if names.Len() > 0 {
		w.WriteString(`<definedNames>` + names.String() + `</definedNames>`)
	}
	w.WriteString(`</workbook>`)
}

func (b *Book) workbookRels(w *bytes.Buffer) {
	w.WriteString(`<Relationships xmlns="` + nsPkg + `">`)
	for i := range b.plan.Sheets {
		fmt.Fprintf(w, `<Relationship Id="rId%d" Type="%s/worksheet" Target="worksheets/sheet%d.xml"/>`, i+1, nsRels, i+1)
	}
	fmt.Fprintf(w, `<Relationship Id="rId%d" Type="%s/styles" Target="styles.xml"/>`, len(b.plan.Sheets)+1, nsRels)
	w.WriteString(`</Relationships>`)
}

// table is a list of style parts (fonts, fills, borders, number
// formats), each written once and referred to by its index.
type table struct {
	ids  map[string]int
	body bytes.Buffer
}

// add is the index of a part, added if new; part makes its XML from
// the index it would get.
func (t *table) add(key string, part func(id int) string) int {
	if t.ids == nil {
		t.ids = map[string]int{}
	}
	if n, ok := t.ids[key]; ok {
		return n
	}
	n := len(t.ids)
	t.ids[key] = n
	t.body.WriteString(part(n))
	return n
}

func same(xml string) (string, func(int) string) { return xml, func(int) string { return xml } }

// styles writes the style sheet: cell format 0 is the default, cell format
// i+1 is Plan.Styles[i]. Fills 0 and 1 are the two every reader expects
// (none, gray125); custom number formats start at 164, after the built-in.
func (b *Book) styles(w *bytes.Buffer) {
	var fonts, fills, borders, numFmts table
	var xfs bytes.Buffer
	fonts.add(same(font(Style{})))
	fills.add(same(fillXML("")))
	fills.add(same(`<fill><patternFill patternType="gray125"/></fill>`))
	borders.add(same(borderXML("")))
	xfs.WriteString(`<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>`)
	for _, s := range b.plan.Styles {
		num := 0
		if s.NumFmt != "" {
			num = 164 + numFmts.add(s.NumFmt, func(n int) string {
				return fmt.Sprintf(`<numFmt numFmtId="%d" formatCode="%s"/>`, 164+n, attr(s.NumFmt))
			})
		}
		xf(&xfs, s, num, fonts.add(same(font(s))), fills.add(same(fillXML(s.Fill))), borders.add(same(borderXML(s.Bottom))))
	}
	w.WriteString(`<styleSheet xmlns="` + nsMain + `">`)
	if len(numFmts.ids) > 0 {
		fmt.Fprintf(w, `<numFmts count="%d">%s</numFmts>`, len(numFmts.ids), numFmts.body.String())
	}
	fmt.Fprintf(w, `<fonts count="%d">%s</fonts>`, len(fonts.ids), fonts.body.String())
	fmt.Fprintf(w, `<fills count="%d">%s</fills>`, len(fills.ids), fills.body.String())
	fmt.Fprintf(w, `<borders count="%d">%s</borders>`, len(borders.ids), borders.body.String())
	w.WriteString(`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>`)
	fmt.Fprintf(w, `<cellXfs count="%d">%s</cellXfs>`, len(b.plan.Styles)+1, xfs.String())
	w.WriteString(`<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>`)
	w.WriteString(`</styleSheet>`)
}

// xf writes a cell format of style s with the indexes of its parts.
func xf(w *bytes.Buffer, s Style, num, font, fill, border int) {
	fmt.Fprintf(w, `<xf numFmtId="%d" fontId="%d" fillId="%d" borderId="%d" xfId="0"`, num, font, fill, border)
	applies := []bool{num > 0, font > 0, fill > 1, border > 0, s.Wrap}
	for i, name := range []string{"applyNumberFormat", "applyFont", "applyFill", "applyBorder", "applyAlignment"} {
		if applies[i] {
			w.WriteString(` ` + name + `="1"`)
		}
	}
	if s.Wrap {
		w.WriteString(`><alignment vertical="top" wrapText="1"/></xf>`)
	} else {
		w.WriteString(`/>`)
	}
}

func font(s Style) string {
	size := s.Size
	if size <= 0 {
		size = 11
	}
	bold := ""
	if s.Bold {
		bold = "<b/>"
	}
	return `<font>` + bold + `<sz val="` + strconv.FormatFloat(size, 'f', -1, 64) + `"/><name val="Calibri"/><family val="2"/></font>`
}

func fillXML(rgb string) string {
	if rgb == "" {
		return `<fill><patternFill patternType="none"/></fill>`
	}
	return `<fill><patternFill patternType="solid"><fgColor rgb="FF` + attr(rgb) + `"/><bgColor indexed="64"/></patternFill></fill>`
}

func borderXML(rgb string) string {
	if rgb == "" {
		return `<border><left/><right/><top/><bottom/><diagonal/></border>`
	}
	return `<border><left/><right/><top/><bottom style="thin"><color rgb="FF` + attr(rgb) + `"/></bottom><diagonal/></border>`
}

// attr is s escaped as an XML attribute value.
func attr(s string) string {
	var b strings.Builder
	writeEscaped(&b, s)
	return b.String()
}
