package localfile

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/stactor/stactor/row"
)

// excelize is an independent implementation of the format: the tests
// write with it and read what it writes, and have it read what xlsx.go
// and xlsxwrite.go do. It is not linked into stactor (see xlsx.go).

// xlsxStrings are texts that need escaping of one kind or another.
var xlsxStrings = []string{"plain", `a<b>&"c'`, "tab\there\nnewline", "cr\r\nlf", "ctl\x01\x1f", "_x0041_ literal", "日本語 🎉",
	" lead and trail ", ""}

// TestXLSXWriterReadByExcelize: what xlsxWriter writes, excelize reads
// with the same sheet name, texts, numbers, booleans, errors, gaps and
// date formats.
func TestXLSXWriterReadByExcelize(t *testing.T) {
	var buf bytes.Buffer
	xw, err := newXLSXWriter(&buf, "Data & <more>", "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss", "hh:mm:ss")
	if err != nil {
		t.Fatal(err)
	}
	var first []xlsxCell
	for _, s := range xlsxStrings {
		first = append(first, xlsxCell{kind: xlsxString, v: s, style: xfText})
	}
	second := []xlsxCell{xlsxNumberCell(1.5, 64, xfGeneral), {kind: xlsxNumber, v: "-42", style: xfGeneral}, {},
		{kind: xlsxBool, v: "1"}, xlsxNumberCell(1/zero(), 64, xfGeneral), xlsxNumberCell(45000.25, 64, xfDateTime)}
	for _, r := range [][]xlsxCell{first, second} {
		if err := xw.writeRow(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := xw.close(); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("excelize cannot open what xlsxWriter wrote: %v", err)
	}
	defer f.Close()
	const sheet = "Data & <more>"
	if got := f.GetSheetList(); len(got) != 1 || got[0] != sheet {
		t.Fatalf("sheets %q", got)
	}
	rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows: %q", len(rows), rows)
	}
	for j, want := range xlsxStrings {
		if cellOf(rows[0], j) != want {
			t.Errorf("text %d: excelize reads %q, want %q", j, cellOf(rows[0], j), want)
		}
	}
	for j, want := range []string{"1.5", "-42", "", "1", "#DIV/0!", "45000.25"} {
		if cellOf(rows[1], j) != want {
			t.Errorf("cell %d of row 2: excelize reads %q, want %q", j, cellOf(rows[1], j), want)
		}
	}
	for axis, want := range map[string]excelize.CellType{"A1": excelize.CellTypeInlineString, "A2": excelize.CellTypeUnset,
		"D2": excelize.CellTypeBool, "E2": excelize.CellTypeError} {
		if got, err := f.GetCellType(sheet, axis); err != nil || got != want {
			t.Errorf("%s: type %v (%v), want %v", axis, got, err, want)
		}
	}
	id, err := f.GetCellStyle(sheet, "F2")
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil || st.CustomNumFmt == nil || *st.CustomNumFmt != "yyyy-mm-dd hh:mm:ss" {
		t.Errorf("F2's style %+v (%v), want the date-time format", st, err)
	}
	// And xlsx.go reads it back alike.
	got, err := xlsxSheetRows(buf.Bytes(), "DATA & <MORE>")
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range xlsxStrings {
		if c := got[0][j]; c.kind != cellString || c.s != want {
			t.Errorf("text %d read back as %+v, want %q", j, c, want)
		}
	}
	wantDate, _, _ := excelDate(45000.25, false)
	for j, want := range []docCell{{kind: cellNumber, f: 1.5}, {kind: cellNumber, f: -42}, {}, {kind: cellBool, b: true}, {},
		{kind: cellDate, sec: wantDate}} {
		if got[1][j] != want {
			t.Errorf("cell %d of row 2 read back as %+v, want %+v", j, got[1][j], want)
		}
	}
}

func zero() float64 { return 0 }

func cellOf(r []string, j int) string {
	if j < len(r) {
		return r[j]
	}
	return ""
}

// TestXLSXReadsExcelizeWorkbooks reads workbooks excelize writes in its
// different ways: shared strings, rich text, a stream writer's inline
// strings, numbers as text, booleans, dates in built-in and custom
// formats, formulas without a cached value, missing rows and cells,
// several sheets, and the 1904 date system.
func TestXLSXReadsExcelizeWorkbooks(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	style := func(s *excelize.Style) int {
		id, err := f.NewStyle(s)
		must(err)
		return id
	}
	custom := "yyyy/mm/dd hh:mm"
	builtin, own := style(&excelize.Style{NumFmt: 14}), style(&excelize.Style{CustomNumFmt: &custom})
	for axis, v := range map[string]any{"A1": "shared", "C1": 42.5, "D1": true, "F1": 45000.25, "G1": 45000.5, "A4": "after a gap"} {
		must(f.SetCellValue("Sheet1", axis, v))
	}
	must(f.SetCellStr("Sheet1", "H1", "007"))
	must(f.SetCellRichText("Sheet1", "E1", []excelize.RichTextRun{{Text: "rich "}, {Text: "text", Font: &excelize.Font{Bold: true}}}))
	must(f.SetCellStyle("Sheet1", "F1", "F1", builtin))
	must(f.SetCellStyle("Sheet1", "G1", "G1", own))
	must(f.SetCellFormula("Sheet1", "I1", "1+1"))
	for j, s := range xlsxStrings {
		axis, _ := excelize.CoordinatesToCellName(j+1, 5)
		must(f.SetCellStr("Sheet1", axis, s))
	}
	_, err := f.NewSheet("Other")
	must(err)
	must(f.SetCellValue("Other", "B2", "other's"))
	_, err = f.NewSheet("Stream")
	must(err)
	sw, err := f.NewStreamWriter("Stream")
	must(err)
	must(sw.SetRow("A1", []any{"inline", 7, false}))
	must(sw.Flush())
	var buf bytes.Buffer
	must(f.Write(&buf))
	data := buf.Bytes()

	rows, err := xlsxSheetRows(data, "")
	must(err)
	d1, _, _ := excelDate(45000.25, false)
	d2, _, _ := excelDate(45000.5, false)
	want := [][]docCell{
		{{kind: cellString, s: "shared"}, {}, {kind: cellNumber, f: 42.5}, {kind: cellBool, b: true}, {kind: cellString, s: "rich text"},
			{kind: cellDate, sec: d1}, {kind: cellDate, sec: d2}, {kind: cellString, s: "007"}},
		nil, nil,
		{{kind: cellString, s: "after a gap"}},
		nil, // row 5: the strings, compared below
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	for r := range 4 {
		if fmt.Sprint(rows[r]) != fmt.Sprint(want[r]) {
			t.Errorf("row %d: %+v, want %+v", r+1, rows[r], want[r])
		}
	}
	for j, s := range xlsxStrings {
		if s == "" || j == 4 || j == 5 {
			// excelize writes no cell for an empty string, control
			// characters as U+FFFD, and a literal _x0041_ unescaped
			// (which Excel reads as "A"): xlsxWriter's own are checked
			// by TestXLSXWriterReadByExcelize.
			continue
		}
		if c := rows[4][j]; c.kind != cellString || c.s != s {
			t.Errorf("string %d: %+v, want %q", j, c, s)
		}
	}
	if rows, err := xlsxSheetRows(data, "other"); err != nil || len(rows) != 2 || rows[0] != nil || fmt.Sprint(rows[1]) != fmt.Sprint([]docCell{{}, {kind: cellString, s: "other's"}}) {
		t.Errorf("sheet Other: %+v, %v", rows, err)
	}
	if rows, err := xlsxSheetRows(data, "Stream"); err != nil || len(rows) != 1 ||
		fmt.Sprint(rows[0]) != fmt.Sprint([]docCell{{kind: cellString, s: "inline"}, {kind: cellNumber, f: 7}, {kind: cellBool}}) {
		t.Errorf("sheet Stream: %+v, %v", rows, err)
	}
	if _, err := xlsxSheetRows(data, "nope"); err == nil || !strings.Contains(err.Error(), `no sheet "nope"`) {
		t.Errorf("missing sheet: %v", err)
	}

	// The 1904 date system: serial 0 is 1904-01-01.
	g := excelize.NewFile()
	defer g.Close()
	yes := true
	must(g.SetWorkbookProps(&excelize.WorkbookPropsOptions{Date1904: &yes}))
	id, err := g.NewStyle(&excelize.Style{NumFmt: 14})
	must(err)
	must(g.SetCellValue("Sheet1", "A1", 1.5))
	must(g.SetCellStyle("Sheet1", "A1", "A1", id))
	buf.Reset()
	must(g.Write(&buf))
	rows, err = xlsxSheetRows(buf.Bytes(), "")
	must(err)
	if wantSec := row.DaysFromCivil(1904, 1, 2)*86400 + 43200; len(rows) != 1 || rows[0][0] != (docCell{kind: cellDate, sec: wantSec}) {
		t.Errorf("1904 system: %+v, want 1904-01-02 12:00", rows)
	}
}

// TestXLSXStrict reads a workbook in ISO 29500 strict namespaces, with
// absolute part names, a part whose name differs in case from its
// relationship's target, and no cell or row references, as some tools
// write them.
func TestXLSXStrict(t *testing.T) {
	const ns = `xmlns="http://purl.oclc.org/ooxml/spreadsheetml/main" xmlns:r="http://purl.oclc.org/ooxml/officeDocument/relationships"`
	const rel = "http://purl.oclc.org/ooxml/officeDocument/relationships/"
	parts := map[string]string{
		"_rels/.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="a" Type="` + rel +
			`officeDocument" Target="/book/wb.xml"/></Relationships>`,
		"book/wb.xml": `<workbook ` + ns + `><sheets><sheet name="S" sheetId="1" r:id="x"/></sheets></workbook>`,
		"book/_rels/wb.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="x" Type="` + rel +
			`worksheet" Target="/book/s.xml"/><Relationship Id="y" Type="` + rel + `sharedStrings" Target="strings.xml"/></Relationships>`,
		"book/Strings.xml": `<sst ` + ns + `><si><t>zero</t></si><si><r><t>o</t></r><r><t>ne</t></r><rPh><t>ワン</t></rPh></si></sst>`,
		"book/s.xml": `<worksheet ` + ns + `><sheetData><row><c t="s"><v>1</v></c><c><v>2.5</v></c></row>` +
			`<row><c t="s"><v>0</v></c><c t="e"><v>#N/A</v></c><c t="inlineStr"><is><t>in_x000A_line</t></is></c><c t="d"><v>2024-02-29T12:00:00</v></c></row></sheetData></worksheet>`,
	}
	rows, err := xlsxSheetRows(zipOf(t, parts), "")
	if err != nil {
		t.Fatal(err)
	}
	leap := row.DaysFromCivil(2024, 2, 29)*86400 + 43200
	want := [][]docCell{{{kind: cellString, s: "one"}, {kind: cellNumber, f: 2.5}},
		{{kind: cellString, s: "zero"}, {}, {kind: cellString, s: "in\nline"}, {kind: cellDate, sec: leap}}}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("rows %+v, want %+v", rows, want)
	}
}

// TestXLSXErrors: what is not a readable sheet is an error that says
// what, never a panic; a sheet name Excel refuses is refused when the
// sink is configured.
func TestXLSXErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not a zip", []byte("hello"), "not an xlsx file"},
		{"encrypted", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...), "password-protected"},
		{"no workbook", zipOf(t, map[string]string{"a.txt": "x"}), "no part xl/workbook.xml"},
		{"bad shared string", zipOf(t, map[string]string{
			"xl/workbook.xml":            `<workbook><sheets><sheet name="A" r:id="r1" xmlns:r="r"/></sheets></workbook>`,
			"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="r1" Type="t/worksheet" Target="s.xml"/></Relationships>`,
			"xl/s.xml":                   `<worksheet><sheetData><row r="1"><c r="B1" t="s"><v>3</v></c></row></sheetData></worksheet>`,
		}), "cell B1: shared string"},
		{"rows out of order", zipOf(t, map[string]string{
			"xl/workbook.xml":            `<workbook><sheets><sheet name="A" r:id="r1" xmlns:r="r"/></sheets></workbook>`,
			"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="r1" Type="t/worksheet" Target="s.xml"/></Relationships>`,
			"xl/s.xml":                   `<worksheet><sheetData><row r="2"/><row r="1"/></sheetData></worksheet>`,
		}), `row "1" after row 2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := xlsxSheetRows(tc.data, ""); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	s := row.MustSchema("t", row.Field{Name: "a", Type: row.Int})
	for _, name := range []string{"a/b", "x[1]", "'quoted'", strings.Repeat("n", 32)} {
		if _, err := createSinkErr(t, `path = `+q(t.TempDir())+`
			file_format_type = excel
			sheet_name = `+q(name), s); err == nil || !strings.Contains(err.Error(), "sheet_name") {
			t.Errorf("sheet_name %q: %v", name, err)
		}
	}
}

func zipOf(t *testing.T, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestXLSXCorrupt: damaged workbooks, stored uncompressed so that the
// damage reaches the XML, are errors or other values, never a panic.
func TestXLSXCorrupt(t *testing.T) {
	var buf bytes.Buffer
	xw, err := newXLSXWriter(&buf, "S", "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss", "hh:mm:ss")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		xw.writeRow([]xlsxCell{{kind: xlsxString, v: fmt.Sprint("s", i)}, xlsxNumberCell(float64(i)*1.5, 64, xfDate), {kind: xlsxBool, v: "1"}})
	}
	if err := xw.close(); err != nil {
		t.Fatal(err)
	}
	// The same parts again, stored.
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var stored bytes.Buffer
	zw := zip.NewWriter(&stored)
	for _, f := range zr.File {
		rc, _ := f.Open()
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Store})
		var b bytes.Buffer
		b.ReadFrom(rc)
		w.Write(b.Bytes())
	}
	zw.Close()
	for k, orig := range [][]byte{buf.Bytes(), stored.Bytes()} {
		if _, err := xlsxSheetRows(orig, ""); err != nil {
			t.Fatal(err)
		}
		mutate(t, orig, 3000, uint64(7+k), func(bad []byte) { xlsxSheetRows(bad, "") })
	}
}
