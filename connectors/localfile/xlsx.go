package localfile

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/row"
)

// The xlsx reader (ECMA-376 SpreadsheetML, transitional or strict): the
// few parts a sheet's values need — the workbook's sheet list and date
// system, the shared strings, the cell formats' number formats and the
// sheet's cells — read with archive/zip and encoding/xml, which every
// stactor process links anyway.
//
// Why not excelize, which read and wrote xlsx before: linking it costs
// every stactor process, whatever its job, 1.4 MB of allocations and
// 2.3 ms in package initialisation, and 3.8 MiB of peak resident memory
// (benchmarks/RESULTS.md, "Workload 2's memory, 2026-12-07"), for a
// format that needs one sheet's values in and one sheet's rows out. The
// tests still use excelize, as an independent writer and reader.

// xlsxSheetRows reads the cells of sheet `sheet` (the first sheet when
// empty; names compare as Excel's do, ignoring case) of an xlsx workbook:
// one slice per row up to the last row the sheet has, nil for a row it
// does not have (POI's getRow is null), and in each row the cells up to
// its last non-blank one. A cell is its text, a number, a boolean, a date
// (a number in a date format, or an ISO 8601 date cell) or null (blank,
// or an error value).
func xlsxSheetRows(data []byte, sheet string) ([][]docCell, error) {
	if bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}) {
		// A compound file: what Excel makes of a password-protected
		// workbook (or an .xls under the wrong name).
		return nil, errors.New("not an xlsx file but an OLE2 compound file: a password-protected workbook (not supported), or an .xls file named .xlsx")
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not an xlsx file: %w", err)
	}
	pkg := xlsxPackage{files: map[string]*zip.File{}}
	for _, f := range zr.File {
		pkg.files[strings.ToLower(strings.TrimPrefix(f.Name, "/"))] = f
	}
	wbPath := "xl/workbook.xml"
	if rels, err := pkg.rels("_rels/.rels", ""); err == nil {
		if t := rels.target("officeDocument"); t != "" {
			wbPath = t
		}
	}
	var wb struct {
		Pr struct {
			Date1904 string `xml:"date1904,attr"`
		} `xml:"workbookPr"`
		Sheets []struct {
			Name  string     `xml:"name,attr"`
			Attrs []xml.Attr `xml:",any,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := pkg.decode(wbPath, &wb); err != nil {
		return nil, fmt.Errorf("not an xlsx file: %w", err)
	}
	if len(wb.Sheets) == 0 {
		return nil, errors.New("the workbook has no sheet")
	}
	k := 0
	if sheet != "" {
		k = -1
		for i, s := range wb.Sheets {
			if strings.EqualFold(s.Name, sheet) {
				k = i
				break
			}
		}
		if k < 0 {
			return nil, fmt.Errorf("no sheet %q (sheet_name)", sheet)
		}
	}
	rid := ""
	for _, a := range wb.Sheets[k].Attrs {
		if a.Name.Local == "id" && a.Name.Space != "" {
			rid = a.Value
		}
	}
	wbRels, err := pkg.rels(relsOf(wbPath), path.Dir(wbPath))
	if err != nil {
		return nil, err
	}
	sheetPath := wbRels.byID[rid]
	if sheetPath == "" {
		return nil, fmt.Errorf("sheet %q: no part for its relationship %q", wb.Sheets[k].Name, rid)
	}
	x := &xlsxReader{date1904: wb.Pr.Date1904 == "1" || wb.Pr.Date1904 == "true"}
	if p := wbRels.target("sharedStrings"); p != "" {
		if x.strs, err = pkg.sharedStrings(p); err != nil {
			return nil, err
		}
	}
	if p := wbRels.target("styles"); p != "" {
		if x.dateXf, err = pkg.dateStyles(p); err != nil {
			return nil, err
		}
	}
	f := pkg.part(sheetPath)
	if f == nil {
		return nil, fmt.Errorf("sheet %q: no part %s", wb.Sheets[k].Name, sheetPath)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("sheet %q: %w", wb.Sheets[k].Name, err)
	}
	defer rc.Close()
	rows, err := x.sheet(xml.NewDecoder(rc))
	if err != nil {
		return nil, fmt.Errorf("sheet %q: %w", wb.Sheets[k].Name, err)
	}
	return rows, nil
}

// xlsxPackage is a workbook's parts by name, which compare ignoring case
// (as the Open Packaging Conventions have them).
type xlsxPackage struct{ files map[string]*zip.File }

func (p xlsxPackage) part(name string) *zip.File { return p.files[strings.ToLower(name)] }

func (p xlsxPackage) decode(name string, v any) error {
	f := p.part(name)
	if f == nil {
		return fmt.Errorf("no part %s", name)
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	if err := xml.NewDecoder(rc).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// relsOf is the relationships part of part name.
func relsOf(name string) string {
	return path.Join(path.Dir(name), "_rels", path.Base(name)+".rels")
}

// xlsxRels are a part's relationships: targets by id and by type (the
// last segment of the type's URI), resolved against dir.
type xlsxRels struct{ byID, byType map[string]string }

func (r xlsxRels) target(typ string) string { return r.byType[typ] }

func (p xlsxPackage) rels(name, dir string) (xlsxRels, error) {
	var doc struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
			Mode   string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	r := xlsxRels{byID: map[string]string{}, byType: map[string]string{}}
	if err := p.decode(name, &doc); err != nil {
		return r, err
	}
	for _, rel := range doc.Rels {
		if rel.Mode == "External" {
			continue
		}
		t := rel.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join(dir, t)
		}
		r.byID[rel.ID] = t
		if _, ok := r.byType[path.Base(rel.Type)]; !ok {
			r.byType[path.Base(rel.Type)] = t
		}
	}
	return r, nil
}

// sharedStrings reads the shared string table: each item's text, its rich
// text runs joined, phonetic runs left out.
func (p xlsxPackage) sharedStrings(name string) ([]string, error) {
	f := p.part(name)
	if f == nil {
		return nil, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	d := xml.NewDecoder(rc)
	var strs []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return strs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "si" {
			s, err := xlsxText(d)
			if err != nil {
				return nil, fmt.Errorf("%s: string %d: %w", name, len(strs), err)
			}
			strs = append(strs, s)
		}
	}
}

// xlsxText reads a string item (si, is) whose start the decoder has just
// read, to its end: the text of its t elements outside phonetic runs.
func xlsxText(d *xml.Decoder) (string, error) {
	var sb strings.Builder
	depth, inT, skip := 1, false, 0
	for depth > 0 {
		tok, err := d.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case skip > 0 || t.Name.Local == "rPh":
				skip++
			case t.Name.Local == "t":
				inT = true
			}
		case xml.EndElement:
			depth--
			switch {
			case skip > 0:
				skip--
			case t.Name.Local == "t":
				inT = false
			}
		case xml.CharData:
			if inT && skip == 0 {
				sb.Write(t)
			}
		}
	}
	return xlsxUnescape(sb.String()), nil
}

// xlsxUnescape decodes Excel's _xHHHH_ escapes (characters XML cannot
// hold; _x005F_ is a literal underscore before what would look like one).
func xlsxUnescape(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		if xlsxEscaped(s, i) {
			v, _ := strconv.ParseUint(s[i+2:i+6], 16, 16)
			sb.WriteRune(rune(v))
			i += 7
			continue
		}
		sb.WriteByte(s[i])
		i++
	}
	return sb.String()
}

// xlsxEscaped tells whether an _xHHHH_ escape starts at s[i].
func xlsxEscaped(s string, i int) bool {
	if i+7 > len(s) || s[i] != '_' || s[i+1] != 'x' || s[i+6] != '_' {
		return false
	}
	for _, c := range []byte(s[i+2 : i+6]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// dateStyles reads which cell formats (by index, a cell's s) show numbers
// as dates or times.
func (p xlsxPackage) dateStyles(name string) ([]bool, error) {
	var doc struct {
		NumFmts []struct {
			ID   int    `xml:"numFmtId,attr"`
			Code string `xml:"formatCode,attr"`
		} `xml:"numFmts>numFmt"`
		Xfs []struct {
			NumFmt int `xml:"numFmtId,attr"`
		} `xml:"cellXfs>xf"`
	}
	if p.part(name) == nil {
		return nil, nil
	}
	if err := p.decode(name, &doc); err != nil {
		return nil, err
	}
	custom := map[int]string{}
	for _, f := range doc.NumFmts {
		custom[f.ID] = f.Code
	}
	dates := make([]bool, len(doc.Xfs))
	for i, xf := range doc.Xfs {
		dates[i] = isDateFormat(xf.NumFmt, custom[xf.NumFmt])
	}
	return dates, nil
}

// xlsxReader reads one sheet's cells.
type xlsxReader struct {
	strs     []string
	dateXf   []bool
	date1904 bool
}

// sheet reads the rows of a worksheet part.
func (x *xlsxReader) sheet(d *xml.Decoder) ([][]docCell, error) {
	var rows [][]docCell
	var cur []docCell
	rowNum, col := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				n := rowNum + 1
				if r := xmlAttr(t, "r"); r != "" {
					if n, err = strconv.Atoi(r); err != nil || n <= rowNum || n > xlsxMaxRows {
						return nil, fmt.Errorf("row %q after row %d", r, rowNum)
					}
				}
				rowNum, col, cur = n, 0, []docCell{}
			case "c":
				c, ref, err := x.cell(d, t)
				if err != nil {
					return nil, fmt.Errorf("cell %s: %w", cellRef(rowNum, col, ref), err)
				}
				if ref != "" {
					n, r, ok := parseCellRef(ref)
					if !ok || n < col || (r != 0 && r != rowNum) {
						return nil, fmt.Errorf("cell %q in row %d after column %d", ref, rowNum, col)
					}
					col = n
				}
				col++
				if c.kind != cellNone {
					for len(cur) < col-1 {
						cur = append(cur, docCell{})
					}
					cur = append(cur, c)
				}
			}
		case xml.EndElement:
			if t.Name.Local == "row" {
				for len(rows) < rowNum-1 {
					rows = append(rows, nil)
				}
				rows = append(rows, cur)
			}
		}
	}
}

// cell reads a c element whose start the decoder has just read.
func (x *xlsxReader) cell(d *xml.Decoder, start xml.StartElement) (docCell, string, error) {
	ref, typ := xmlAttr(start, "r"), xmlAttr(start, "t")
	var v string
	var inline *string
	depth, inV, hasV := 1, false, false
	for depth > 0 {
		tok, err := d.Token()
		if err != nil {
			return docCell{}, ref, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "is":
				s, err := xlsxText(d)
				if err != nil {
					return docCell{}, ref, err
				}
				inline = &s
				continue // xlsxText read its end
			case "v":
				inV, hasV = true, true
			}
			depth++
		case xml.EndElement:
			depth--
			inV = false
		case xml.CharData:
			if inV {
				v += string(t)
			}
		}
	}
	if !hasV && inline == nil {
		return docCell{}, ref, nil // no value (a styled blank, a formula never calculated): null
	}
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(x.strs) {
			return docCell{}, ref, fmt.Errorf("shared string %q of %d", v, len(x.strs))
		}
		return docCell{kind: cellString, s: x.strs[i]}, ref, nil
	case "inlineStr":
		if inline == nil {
			return docCell{}, ref, nil
		}
		return docCell{kind: cellString, s: *inline}, ref, nil
	case "str":
		return docCell{kind: cellString, s: xlsxUnescape(v)}, ref, nil
	case "b":
		return docCell{kind: cellBool, b: v == "1" || strings.EqualFold(v, "true")}, ref, nil
	case "e":
		return docCell{}, ref, nil // POI's ERROR cells read as null
	case "d":
		sec, nano, err := xlsxISODate(v)
		if err != nil {
			return docCell{}, ref, err
		}
		return docCell{kind: cellDate, sec: sec, nano: nano}, ref, nil
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return docCell{}, ref, nil // blank: null
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return docCell{kind: cellString, s: v}, ref, nil
	}
	if s, err := strconv.Atoi(xmlAttr(start, "s")); err == nil && s >= 0 && s < len(x.dateXf) && x.dateXf[s] {
		sec, nano, err := excelDate(n, x.date1904)
		if err != nil {
			return docCell{}, ref, err
		}
		return docCell{kind: cellDate, sec: sec, nano: nano}, ref, nil
	}
	return docCell{kind: cellNumber, f: n}, ref, nil
}

// xlsxISODate reads a date cell (t="d"): ISO 8601, with or without a
// time and a zone; the value is the local date-time it writes.
func xlsxISODate(v string) (int64, int32, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, strings.TrimSpace(v)); err == nil {
			sec, nano := row.TimestampOf(t) // its wall clock
			return sec, nano, nil
		}
	}
	return 0, 0, fmt.Errorf("bad date %q", v)
}

func xmlAttr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// xlsxMaxRows and xlsxMaxCols are a sheet's bounds (Excel 2007 on).
const xlsxMaxRows, xlsxMaxCols = 1 << 20, 1 << 14

// parseCellRef reads a reference such as "AB12": column 0-based, row
// 1-based (0 when the reference has none).
func parseCellRef(ref string) (col, rowNum int, ok bool) {
	i := 0
	for ; i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z'; i++ {
		col = col*26 + int(ref[i]-'A'+1)
		if col > xlsxMaxCols {
			return 0, 0, false
		}
	}
	if i == 0 {
		return 0, 0, false
	}
	if i < len(ref) {
		n, err := strconv.Atoi(ref[i:])
		if err != nil || n < 1 || n > xlsxMaxRows {
			return 0, 0, false
		}
		rowNum = n
	}
	return col - 1, rowNum, true
}

// colName is column col's letters (0 is A).
func colName(col int) string {
	var b [4]byte
	i := len(b)
	for col++; col > 0; col = (col - 1) / 26 {
		i--
		b[i] = byte('A' + (col-1)%26)
	}
	return string(b[i:])
}

// cellRef names a cell for an error: its reference, or where it stood.
func cellRef(rowNum, col int, ref string) string {
	if ref != "" {
		return ref
	}
	return colName(col) + strconv.Itoa(rowNum)
}
