package localfile

import (
	"archive/zip"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The xlsx writer: a workbook of one sheet streamed into a zip as its rows
// come (the package's fixed parts first, the sheet last), so nothing but
// the row being written is held in memory. Strings are inline strings, as
// a stream writer's are (a shared string table would hold every string
// until the end). Why not excelize: see xlsx.go.

// Cell formats of the workbook (indexes into styles.xml's cellXfs).
const (
	xfGeneral = iota
	xfText
	xfDate
	xfDateTime
	xfTime
)

// xlsxCell is one cell to write; the zero cell is none.
type xlsxCell struct {
	kind  xlsxKind
	v     string // the text, or the number as written
	style int
}

type xlsxKind uint8

const (
	xlsxNone xlsxKind = iota
	xlsxString
	xlsxNumber
	xlsxBool  // v is "1" or "0"
	xlsxError // v is the error's text, #NUM! or #DIV/0!
)

type xlsxWriter struct {
	zw    *zip.Writer
	sheet io.Writer
	buf   []byte
	rows  int // rows written
}

// newXLSXWriter starts a workbook on w with one sheet named sheet; the
// date, date-time and time formats are Excel format codes.
func newXLSXWriter(w io.Writer, sheet, date, datetime, clock string) (*xlsxWriter, error) {
	if err := validSheetName(sheet); err != nil {
		return nil, err
	}
	x := &xlsxWriter{zw: zip.NewWriter(w)}
	esc := func(s string) string {
		var sb strings.Builder
		xml.EscapeText(&sb, []byte(s)) // quotes too
		return sb.String()
	}
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
			`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
			`<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` +
			`</Types>`},
		{"_rels/.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>` +
			`</Relationships>`},
		{"xl/workbook.xml", `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
			`<sheets><sheet name="` + esc(sheet) + `" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
			`</Relationships>`},
		{"xl/styles.xml", `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
			`<numFmts count="3"><numFmt numFmtId="164" formatCode="` + esc(date) + `"/><numFmt numFmtId="165" formatCode="` + esc(datetime) +
			`"/><numFmt numFmtId="166" formatCode="` + esc(clock) + `"/></numFmts>` +
			`<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>` +
			`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
			`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
			`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
			`<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
			`<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
			`<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
			`<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
			`<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>` +
			`<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`},
	}
	for _, p := range parts {
		pw, err := x.zw.Create(p.name)
		if err == nil {
			_, err = io.WriteString(pw, xml.Header+p.body)
		}
		if err != nil {
			return nil, err
		}
	}
	var err error
	if x.sheet, err = x.zw.Create("xl/worksheets/sheet1.xml"); err == nil {
		_, err = io.WriteString(x.sheet, xml.Header+`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`)
	}
	if err != nil {
		return nil, err
	}
	return x, nil
}

// validSheetName is Excel's rule for a sheet's name.
func validSheetName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("sheet_name is empty")
	case utf8.RuneCountInString(name) > 31:
		return fmt.Errorf("sheet_name %q: more than 31 characters", name)
	case strings.ContainsAny(name, `:\/?*[]`):
		return fmt.Errorf("sheet_name %q: Excel does not allow any of : \\ / ? * [ ]", name)
	case name[0] == '\'' || name[len(name)-1] == '\'':
		return fmt.Errorf("sheet_name %q: Excel does not allow ' at its start or end", name)
	}
	return nil
}

// writeRow writes the next row: cells[j] in column j, none where zero.
func (x *xlsxWriter) writeRow(cells []xlsxCell) error {
	if err := x.room(1); err != nil {
		return err
	}
	x.rows++
	r := strconv.Itoa(x.rows)
	b := append(x.buf[:0], `<row r="`...)
	b = append(b, r...)
	b = append(b, `">`...)
	for j, c := range cells {
		if c.kind == xlsxNone {
			continue
		}
		b = append(b, `<c r="`...)
		b = append(b, colName(j)...)
		b = append(b, r...)
		b = append(b, `" s="`...)
		b = strconv.AppendInt(b, int64(c.style), 10)
		switch c.kind {
		case xlsxString:
			b = append(b, `" t="inlineStr"><is><t xml:space="preserve">`...)
			b = appendXLSXText(b, c.v)
			b = append(b, `</t></is></c>`...)
			continue
		case xlsxBool:
			b = append(b, `" t="b`...)
		case xlsxError:
			b = append(b, `" t="e`...)
		}
		b = append(b, `"><v>`...)
		b = append(b, c.v...)
		b = append(b, `</v></c>`...)
	}
	b = append(b, `</row>`...)
	x.buf = b
	_, err := x.sheet.Write(b)
	return err
}

// room fails when n more rows would not fit the sheet.
func (x *xlsxWriter) room(n int) error {
	if x.rows+n > xlsxMaxRows {
		return fmt.Errorf("an xlsx sheet holds at most %d rows (lower batch_size)", xlsxMaxRows)
	}
	return nil
}

// appendXLSXText escapes s for a t element: XML's escapes, and Excel's
// _xHHHH_ for the characters XML 1.0 cannot hold (and for a literal
// underscore that would read as such an escape), as Excel writes them.
func appendXLSXText(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '<':
			b = append(b, "&lt;"...)
		case c == '>':
			b = append(b, "&gt;"...)
		case c == '&':
			b = append(b, "&amp;"...)
		case c == '\r':
			b = append(b, "&#xD;"...)
		case c < 0x20 && c != '\t' && c != '\n':
			b = fmt.Appendf(b, "_x%04X_", c)
		case c == '_' && xlsxEscaped(s, i):
			b = append(b, "_x005F_"...)
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r == 0xFFFE || r == 0xFFFF {
				b = append(b, "\uFFFD"...) // not a character XML can hold
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n - 1
		default:
			b = append(b, c)
		}
	}
	return b
}

// close ends the sheet and the package.
func (x *xlsxWriter) close() error {
	if _, err := io.WriteString(x.sheet, `</sheetData></worksheet>`); err != nil {
		return err
	}
	return x.zw.Close()
}
